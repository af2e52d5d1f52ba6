/// The version of the engine, shared by `be_essence2_version()` and the `essence2` command.
public enum LibraryVersion {
    /// "MAJOR.MINOR.PATCH"; a static string, so the C layer can hand out its bytes.
    public static let string: StaticString = "1.0.0"
}
