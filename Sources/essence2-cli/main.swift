import Glibc

// A closed ffmpeg pipe must be an error to report, not a silent death.
signal(SIGPIPE, SIG_IGN)
exit(CommandDispatch.run(Array(CommandLine.arguments.dropFirst())))
