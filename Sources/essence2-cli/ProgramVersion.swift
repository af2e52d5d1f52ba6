/// The version of the essence2 command (the same as the library's and essence2.pc's).
enum ProgramVersion {
    static let string = "1.0.0"
}
