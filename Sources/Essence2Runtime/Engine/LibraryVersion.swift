/// The version of the engine, shared by `be_essence2_version()`, `be_essence2_version_number()` and the
/// `essence2` command. include/essence2.h states the same numbers as `ESSENCE2_VERSION_MAJOR/MINOR/PATCH` (a
/// test reads the header and checks both); the Makefile takes the installed file names from the header.
package enum LibraryVersion {
    package static let major = 1
    package static let minor = 4
    package static let patch = 0
    /// "MAJOR.MINOR.PATCH"; a static string, so the C layer can hand out its bytes (a test checks it against
    /// the numbers above).
    package static let string: StaticString = "1.4.0"
    /// `ESSENCE2_VERSION_NUMBER(major, minor, patch)` of the header: major * 1000000 + minor * 1000 + patch.
    package static let number = major * 1_000_000 + minor * 1_000 + patch
}
