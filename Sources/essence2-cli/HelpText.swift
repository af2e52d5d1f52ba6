import Essence2Runtime

/// The texts of `essence2 --help` and of each command's `--help`.
enum HelpText {
    static func forCommand(_ command: String) -> String? {
        switch command {
        case "render": return render
        case "audio": return audio
        case "bench": return bench
        case "play": return play
        case "engine": return engine
        default: return nil
        }
    }

    static let main = """
    essence2 \(LibraryVersion.string): on-device talking avatar. Speech in, lip-synced video out.

    usage:
      essence2 render SPEECH [--avatar A.imx] [-o out.mp4] [--mode full|head] [--seed N]
                     [--lipsync learned|v1] [--frames DIR] [--preset P] [--quiet]
                                 render SPEECH (any audio file) as a video of the avatar speaking it
      essence2 play SPEECH | --say "TEXT" | --mic [--avatar A.imx]
                                 watch and hear the avatar speak live in a window
      essence2 audio IN -o OUT.wav   convert any audio file to the engine's input (16 kHz mono 16-bit WAV)
      essence2 bench [--avatar A.imx] [--json]
                                 measure speed, memory and latency; prints one table
      essence2 avatar build|detect|inspect|get|rig ...
                                 make or examine .imx avatar files (essence2 avatar --help); a
                                 character (Expression 2): essence2 avatar build PICTURE --character;
                                 rig places a character's points on its picture in a local page
      essence2 engine export -o FILE.engine | engine inspect FILE.engine
                                 write or check Expression 2's shared engine container
      essence2 --help | help COMMAND
      essence2 --version

    The default avatar is avatars/grace-hopper.imx in the current directory, else the installed
    PREFIX/share/essence2/avatars/grace-hopper.imx. --avatar also takes a bare name (grace-hopper)
    looked up in those directories.

    exit status: 0 success, 1 failure while working (encoding, writing, engine), 2 bad command line,
                 3 speech file missing, unreadable or empty, 4 avatar file missing or invalid,
                 5 (play) no display, sound device or SDL2, 6 (avatar get) refused by the service.
    """

    static let engine = """
    usage: essence2 engine export -o FILE.engine
           essence2 engine inspect FILE.engine

    export writes the shared engine container that Expression 2 engines can load (Swift:
    Expression2Engine.create(avatarContainer:sharedEngineContainer:stagingDir:), C: be_expression2_create's
    engine_path): the models every character avatar shares (this library's lip-sync model), in the .imx
    container layout with a sha256 for every section. inspect checks one (exit 4 when it is invalid).
    """

    static let render = """
    usage: essence2 render SPEECH [options]

    Renders the avatar speaking SPEECH (WAV, FLAC, Ogg, AIFF...: any rate and channel count; the engine
    hears it as 16 kHz mono) as fast as the machine goes, and writes a video with the speech, at its own
    rate and channels, as its sound track.

      -a, --avatar A.imx    avatar file (default: grace-hopper.imx, see essence2 --help)
      -o, --output FILE     output video (default: SPEECH's name with .mp4, in the current directory):
                            .mp4/.m4v, .mov, .mkv (H.264 + AAC) or .webm (VP9 + Opus), encoded by ffmpeg;
                            .y4m writes FILE.y4m (raw video) and FILE.wav (16 kHz mono) without ffmpeg.
                            The file appears only when complete: an existing one is replaced at the end,
                            and an interrupted or failed render leaves it as it was.
          --preset P        x264 speed against file size: ultrafast ... veryslow (default veryfast, so the
                            encoder takes about as long as the engine; slower presets make smaller files)
      -m, --mode full|head  full: the whole portrait (default); head: a square crop around the head
          --seed N          seed of the idle motion (blinks, head movement), for reproducible output
          --lipsync M       how speech moves the mouth: learned (the trained model, default) or v1
                            (version 1's loudness-driven mapping, for comparison)
          --frames DIR      also write every frame as DIR/frame_00000.png, ... (removed again if the
                            render fails or is interrupted)
      -q, --quiet           print nothing but errors
      -h, --help            this text

    The video holds the speech frames (one per 40 ms of audio) and the few frames of the face easing back
    to rest; the sound is padded with silence to the video's length. Progress (elapsed time, time left,
    speed) is a bar on a terminal, else a line every 5 seconds on standard error.
    """

    static let play = """
    usage: essence2 play SPEECH [--avatar A.imx] | --say "TEXT" | --mic   [--once] [--log FILE]

    Shows the avatar speaking in a window and plays the speech on the default sound device; the lips follow
    what the sound card has actually played (its played-sample count), not the wall clock.

      SPEECH                any audio file (WAV, FLAC, Ogg...; resampled for the engine)
          --say "TEXT"      speak TEXT with espeak-ng (installed separately: sudo apt install espeak-ng)
          --mic             mouth what the microphone hears (no sound is played)
      -a, --avatar A.imx    avatar file (default: grace-hopper.imx, see essence2 --help)
          --once            quit when the reply has ended
          --log FILE        write, for each speech frame shown, its audio time and the sound card's played
                            position at that moment (seconds): the audio/video offset
          --seed N          seed of the idle motion

    Keys: space interrupts (barge-in: the face eases to rest), r replays, q or Esc quits. With espeak-ng
    installed, type a sentence and press Enter to hear it said (space, q and r command only while nothing
    is typed). The window can be resized; the picture keeps its aspect. Needs SDL2 (libsdl2-2.0-0), a
    display (or xvfb-run) and a sound device (exit status 5 when any is missing).
    """

    static let audio = """
    usage: essence2 audio IN -o OUT.wav

    Converts IN (any format libsndfile reads, any rate and channel count) to the engine's input format:
    16 kHz, mono (channel average), signed 16-bit WAV. Resampling: libsamplerate, sinc medium quality.
    """

    static let bench = """
    usage: essence2 bench [--avatar A.imx] [--speech FILE] [--reps N] [--json]

    Measures, in one run, for the avatar at its own size and placed on a 1080x1920 canvas: unpaced
    speed (x real time) for speech and for idle frames with one engine and with four engines at once
    (four threads), peak memory (VmHWM of a process running them), the latency from the first audio to
    the first speech frame, and the time to copy one frame. Prints medians of several repetitions.

      -a, --avatar A.imx  avatar (default: grace-hopper.imx, see essence2 --help)
          --speech FILE   speech to render (default: examples/audio/demo.wav, else a synthetic signal)
          --reps N        repetitions of each measurement (default 3)
          --json          machine-readable output instead of the table
    """
}
