import CSDL2Loader
import Essence2Runtime
import Glibc

/// The player's window, sound card and microphone, through SDL2 loaded at run time (`e2_sdl.h`).
final class SDLSession {
    /// What the player reacts to.
    enum Event {
        case quit, interrupt, replay
        /// Enter after typing: the text to say.
        case say(String)
        /// The typed text changed.
        case typing
    }

    private var api = e2_sdl()
    private var window: OpaquePointer?
    private var renderer: OpaquePointer?
    private var texture: OpaquePointer?
    private var output: SDL_AudioDeviceID = 0
    private var input: SDL_AudioDeviceID = 0
    private var width = 0
    private var height = 0
    private let title: String
    /// The reply's sound and its played position.
    private(set) var audio: PlayerAudio
    /// What the microphone heard (with `capture`).
    let microphone = MicrophoneBuffer()

    /// `SDL_INIT_VIDEO`, `SDL_INIT_AUDIO`, `SDL_WINDOWPOS_CENTERED`, `SDL_WINDOW_RESIZABLE`, `AUDIO_S16SYS`,
    /// `SDL_PIXELFORMAT_BGR24`, `SDL_TEXTUREACCESS_STREAMING` (macros Swift does not import).
    /// SDL video drivers that put a window on a screen.
    private static let displayDrivers: Set<String> = ["x11", "wayland", "KMSDRM", "kmsdrm", "cocoa", "windows"]
    private static let initVideo: UInt32 = 0x20
    private static let initAudio: UInt32 = 0x10
    private static let centered: Int32 = 0x2FFF_0000
    private static let resizable: UInt32 = 0x20
    private static let signed16: UInt16 = 0x8010
    private static let pixelBGR24: UInt32 = 0x1740_1803
    private static let streaming: Int32 = 1

    /// Loads SDL2 and opens video and the sound card (and the microphone with `capture`).
    init(title: String, capture: Bool) throws(CLIError) {
        self.title = title
        var why = [CChar](repeating: 0, count: 512)
        guard e2_sdl_load(&api, &why, Int32(why.count)) == 1 else {
            throw CLIError("essence2 play needs SDL2, which could not be loaded (\(String(nulTerminated: why))): "
                           + "install it (Debian/Ubuntu: sudo apt install libsdl2-2.0-0)", status: ExitStatus.noDevice)
        }
        audio = PlayerAudio(rate: StreamFormat.sampleRate, bufferFrames: 0)
        guard let sdlInit = api.SDL_Init, sdlInit(Self.initVideo) == 0 else {
            throw CLIError("no display: SDL cannot open one (\(error())); run it on a desktop, or under a virtual "
                           + "display: xvfb-run essence2 play ...", status: ExitStatus.noDevice)
        }
        // Without a display SDL may fall back to a driver that shows nothing (offscreen, dummy, a bare console):
        // that is no display for a player.
        let driver = api.SDL_GetCurrentVideoDriver?().map { String(cString: $0) } ?? "none"
        guard Self.displayDrivers.contains(driver) else {
            throw CLIError("no display: SDL found only its '\(driver)' video driver, which shows nothing (is DISPLAY or "
                           + "WAYLAND_DISPLAY set?); run it on a desktop, or under a virtual display: xvfb-run essence2 play ...",
                           status: ExitStatus.noDevice)
        }
        guard sdlInit(Self.initAudio) == 0 else {
            throw CLIError("no sound device: SDL's audio does not start (\(error())); check that a sound card (or "
                           + "PulseAudio/PipeWire) is there, or choose a driver with SDL_AUDIODRIVER", status: ExitStatus.noDevice)
        }
        try openOutput()
        if capture { try openMicrophone() }
    }

    /// The last SDL error.
    private func error() -> String {
        guard let text = api.SDL_GetError?() else { return "unknown SDL error" }
        return String(cString: text)
    }

    private func openOutput() throws(CLIError) {
        var wanted = SDL_AudioSpec()
        wanted.freq = Int32(StreamFormat.sampleRate)
        wanted.format = Self.signed16
        wanted.channels = 1
        wanted.samples = 256  // 16 ms: the lips follow the sound within a buffer's time
        wanted.callback = { userdata, stream, length in
            guard let userdata, let stream else { return }
            let audio = Unmanaged<PlayerAudio>.fromOpaque(userdata).takeUnretainedValue()
            stream.withMemoryRebound(to: Int16.self, capacity: Int(length) / 2) { audio.fill($0, count: Int(length) / 2) }
        }
        var obtained = SDL_AudioSpec()
        // The device's buffer size is known only once it is open: the callback's target is swapped in after.
        let placeholder = PlayerAudio(rate: StreamFormat.sampleRate, bufferFrames: 0)
        wanted.userdata = Unmanaged.passRetained(placeholder).toOpaque()
        output = api.SDL_OpenAudioDevice?(nil, 0, &wanted, &obtained, 0) ?? 0
        Unmanaged<PlayerAudio>.fromOpaque(wanted.userdata).release()
        guard output != 0 else {
            throw CLIError("no sound device: SDL cannot open one (\(error())); check that a sound card (or PulseAudio/"
                           + "PipeWire) is there, or set SDL_AUDIODRIVER", status: ExitStatus.noDevice)
        }
        // Reopen with the real target now that the buffer size is known.
        api.SDL_CloseAudioDevice?(output)
        audio = PlayerAudio(rate: Int(obtained.freq), bufferFrames: Int(obtained.samples))
        wanted.userdata = Unmanaged.passUnretained(audio).toOpaque()
        output = api.SDL_OpenAudioDevice?(nil, 0, &wanted, &obtained, 0) ?? 0
        guard output != 0 else {
            throw CLIError("no sound device: \(error())", status: ExitStatus.noDevice)
        }
        api.SDL_PauseAudioDevice?(output, 0)
    }

    private func openMicrophone() throws(CLIError) {
        var wanted = SDL_AudioSpec()
        wanted.freq = Int32(StreamFormat.sampleRate)
        wanted.format = Self.signed16
        wanted.channels = 1
        wanted.samples = 512
        wanted.callback = { userdata, stream, length in
            guard let userdata, let stream else { return }
            let buffer = Unmanaged<MicrophoneBuffer>.fromOpaque(userdata).takeUnretainedValue()
            stream.withMemoryRebound(to: Int16.self, capacity: Int(length) / 2) {
                buffer.append(UnsafeBufferPointer(start: $0, count: Int(length) / 2))
            }
        }
        wanted.userdata = Unmanaged.passUnretained(microphone).toOpaque()
        var obtained = SDL_AudioSpec()
        input = api.SDL_OpenAudioDevice?(nil, 1, &wanted, &obtained, 0) ?? 0
        guard input != 0 else {
            throw CLIError("no microphone: SDL cannot open a capture device (\(error()))", status: ExitStatus.noDevice)
        }
        api.SDL_PauseAudioDevice?(input, 0)
    }

    /// Opens the resizable window for frames of `width` x `height`.
    func openWindow(width: Int, height: Int) throws(CLIError) {
        self.width = width
        self.height = height
        window = api.SDL_CreateWindow?(title, Self.centered, Self.centered, Int32(width), Int32(height), Self.resizable)
        if let window { renderer = api.SDL_CreateRenderer?(window, -1, 0) }
        if let renderer {
            texture = api.SDL_CreateTexture?(renderer, Self.pixelBGR24, Self.streaming, Int32(width), Int32(height))
        }
        guard window != nil, renderer != nil, texture != nil else {
            throw CLIError("no display: SDL cannot open a window (\(error())); run it on a desktop, or under a "
                           + "virtual display: xvfb-run essence2 play ...", status: ExitStatus.noDevice)
        }
        api.SDL_SetWindowMinimumSize?(window, 64, 64)
    }

    func setTitle(_ text: String) {
        api.SDL_SetWindowTitle?(window, text)
    }

    func startTextInput() {
        api.SDL_StartTextInput?()
        typing = true
    }

    /// Shows one B,G,R frame, scaled to the window with its aspect kept (black bars around).
    func show(_ bgr: [UInt8]) {
        guard let renderer, let texture, bgr.count >= width * height * 3 else { return }
        bgr.withUnsafeBytes { _ = api.SDL_UpdateTexture?(texture, nil, $0.baseAddress, Int32(width * 3)) }
        var outputWidth: Int32 = 0, outputHeight: Int32 = 0
        _ = api.SDL_GetRendererOutputSize?(renderer, &outputWidth, &outputHeight)
        let scale = min(Double(outputWidth) / Double(width), Double(outputHeight) / Double(height))
        let shownWidth = Int32((Double(width) * scale).rounded()), shownHeight = Int32((Double(height) * scale).rounded())
        var target = SDL_Rect(x: (outputWidth - shownWidth) / 2, y: (outputHeight - shownHeight) / 2, w: shownWidth, h: shownHeight)
        _ = api.SDL_SetRenderDrawColor?(renderer, 0, 0, 0, 255)
        _ = api.SDL_RenderClear?(renderer)
        _ = api.SDL_RenderCopy?(renderer, texture, nil, &target)
        api.SDL_RenderPresent?(renderer)
    }

    /// The events since the last call that the player acts on.
    func events() -> [Event] {
        var found: [Event] = []
        var event = SDL_Event()
        while api.SDL_PollEvent?(&event) == 1 {
            switch event.type {
            case 0x100:  // SDL_QUIT
                found.append(.quit)
            case 0x300:  // SDL_KEYDOWN
                switch event.key.keysym.sym {
                case 27: found.append(.quit)  // Esc
                case 13, 0x4000_0058:  // Return, keypad Enter
                    if !typed.isEmpty { found.append(.say(typed)) }
                    typed = ""
                    found.append(.typing)
                case 8:  // Backspace
                    if !typed.isEmpty { typed.removeLast() }
                    found.append(.typing)
                // While nothing is typed, space, q and r are commands (with text input off they always are).
                case 32 where typed.isEmpty: found.append(.interrupt)
                case 113 where typed.isEmpty: found.append(.quit)
                case 114 where typed.isEmpty: found.append(.replay)
                default: break
                }
            case 0x303:  // SDL_TEXTINPUT: letters typed (the commands above come as key presses too)
                let text = withUnsafeBytes(of: event.text.text) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if typing, !(typed.isEmpty && (text == " " || text == "q" || text == "r")) {
                    typed += text
                    found.append(.typing)
                }
            default:
                break
            }
        }
        return found
    }

    /// Whether typed text is collected (`startTextInput`).
    private(set) var typing = false
    /// What has been typed since the last Enter.
    private(set) var typed = ""

    /// Waits up to `milliseconds` for an event.
    func wait(milliseconds: Int32) {
        _ = api.SDL_WaitEventTimeout?(nil, milliseconds)
    }

    /// Closes the devices and the window.
    func close() {
        if output != 0 { api.SDL_CloseAudioDevice?(output) }
        if input != 0 { api.SDL_CloseAudioDevice?(input) }
        output = 0
        input = 0
        if let texture { api.SDL_DestroyTexture?(texture) }
        if let renderer { api.SDL_DestroyRenderer?(renderer) }
        if let window { api.SDL_DestroyWindow?(window) }
        texture = nil
        renderer = nil
        window = nil
        api.SDL_Quit?()
    }
}
