/// Splits a command's arguments into options and positional arguments.
///
/// Accepted forms: `--name value`, `--name=value`, `-n value`, bare flags (`--json`), and `--` to end the
/// options. Each option is given once; unknown options, missing values and repeated options are errors.
struct ArgumentScanner {
    /// One option the command accepts.
    struct Option {
        /// The canonical name, with dashes: `--avatar`.
        var name: String
        /// Other spellings, with dashes: `-a`.
        var aliases: [String] = []
        /// Whether the option takes a value (otherwise it is a flag).
        var takesValue: Bool
    }

    /// The result of a scan.
    struct Result {
        /// Option values by canonical name (flags map to an empty string).
        var values: [String: String] = [:]
        /// Positional arguments in order.
        var positionals: [String] = []

        func has(_ name: String) -> Bool { values[name] != nil }
        func value(_ name: String) -> String? { values[name] }
    }

    var options: [Option]

    func scan(_ arguments: [String]) throws(CLIError) -> Result {
        var result = Result()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var spelling = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                spelling = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.name == spelling || $0.aliases.contains(spelling) }) else {
                throw .usage("unknown option '\(spelling)'")
            }
            if result.values[option.name] != nil {
                throw .usage("option '\(option.name)' given more than once")
            }
            if option.takesValue {
                if let inlineValue {
                    result.values[option.name] = inlineValue
                } else if index < arguments.count {
                    result.values[option.name] = arguments[index]
                    index += 1
                } else {
                    throw .usage("option '\(option.name)' needs a value")
                }
                if result.values[option.name]?.isEmpty == true {
                    throw .usage("option '\(option.name)' needs a non-empty value")
                }
            } else {
                if inlineValue != nil { throw .usage("option '\(option.name)' takes no value") }
                result.values[option.name] = ""
            }
        }
        return result
    }
}
