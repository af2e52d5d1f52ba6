/// `essence2 audio IN -o OUT.wav`: converts any audio file to the engine's input, 16 kHz mono 16-bit WAV.
enum AudioCommand {
    static let scanner = ArgumentScanner(options: [
        .init(name: "--output", aliases: ["-o"], takesValue: true),
        .init(name: "--help", aliases: ["-h"], takesValue: false),
    ])

    static func run(_ arguments: [String]) throws(CLIError) {
        let scanned = try scanner.scan(arguments)
        if scanned.has("--help") {
            print(HelpText.audio)
            return
        }
        guard scanned.positionals.count == 1, let input = scanned.positionals.first else {
            throw .usage("audio takes one input file: essence2 audio IN -o OUT.wav")
        }
        guard let output = scanned.value("--output") else {
            throw .usage("audio needs an output: essence2 audio IN -o OUT.wav")
        }
        let speech = try AudioLoader.load(path: input)
        if Directory.sameFile(output, input) {
            throw .usage("the output '\(output)' would overwrite the input")
        }
        try WAVFile.write(path: output, samples: speech.samples, sampleRate: SpeechAudio.sampleRate)
        print("essence2: wrote \(output): 16000 Hz mono, \(speech.samples.count) samples (\(Formatting.fixed(speech.duration, digits: 2)) s), "
              + "from \(speech.sourceRate) Hz, \(speech.sourceChannels) channel\(speech.sourceChannels == 1 ? "" : "s")")
    }
}
