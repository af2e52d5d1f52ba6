import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Runtime
@testable import Essence2Service
@testable import Essence2Authoring

/// Findings of the hardening review, each with the behaviour that replaced it (issue "Hardening"): what a crafted
/// file or secret does now.
@Suite struct HardeningTests {
    @Test func anAvatarNameWithTerminalEscapesIsPrintedEscaped() {
        var avatar = AvatarFixture.small()
        avatar.name = "evil\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}name"
        let text = AvatarFile.describe(bytes: AvatarFile.encode(avatar))
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
        #expect(text.contains("name: evil\\u{1B}]0;owned\\u{7}\\u{1B}[2J\\u{9B}name"))
    }

    @Test func secretsThatCannotTravelInOneHeaderLineAreRefusedWithAReason() {
        #expect(Credentials.secretProblem("sk-ok") == nil)
        #expect(Credentials.secretProblem(String(repeating: "k", count: Credentials.maxSecretBytes)) == nil)
        #expect(Credentials.secretProblem("sk\r\nX-Injected: 1")?.contains("control characters") == true)
        #expect(Credentials.secretProblem("sk\n")?.contains("control characters") == true)
        #expect(Credentials.secretProblem(String(repeating: "k", count: 1_200))?.contains("1200 bytes") == true)
    }
}

extension GlobalStateTests {
    /// Downloads ask the same question of the secret as sessions do, before any request is made.
    @Suite struct DownloadSecretTests {
        @Test func aDownloadWithALineBreakOrAnOverlongSecretIsRefusedBeforeAnyRequest() {
            Credentials.setServiceURL("http://127.0.0.1:9")  // nothing listens: a request would fail differently
            defer {
                Credentials.setServiceURL(nil)
                Credentials.setSecret(nil)
            }
            for secret in ["sk\r\nX-Injected: 1", String(repeating: "s", count: 1_100)] {
                Credentials.setSecret(secret)
                guard case .failure(.refused(let reason)) = AvatarDownloads.fetch(code: "A1", directory: "/tmp/x",
                                                                                  background: false) else {
                    Issue.record("the secret was not refused")
                    continue
                }
                #expect(reason.contains("API secret") && reason.contains("A1"))
            }
        }
    }
}
