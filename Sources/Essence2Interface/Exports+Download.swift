import Essence2Runtime
import Essence2Service

// Avatar downloads (include/essence2.h, Downloads). Checks its arguments, maps the failures to the stable
// codes, and never traps on caller input.

@_cdecl("be_essence2_download_avatar")
public func be_essence2_download_avatar(
    _ agentCode: UnsafePointer<CChar>?, _ directory: UnsafePointer<CChar>?,
    _ pathOut: UnsafeMutablePointer<CChar>?, _ capacity: Int32
) -> Int32 {
    guard let agentCode, agentCode.pointee != 0 else {
        return fail(ResultCode.argument, "download_avatar: agent_code is NULL or empty")
    }
    guard capacity >= 0, pathOut != nil || capacity == 0 else {
        return fail(ResultCode.argument, "download_avatar: path_out is NULL with capacity \(capacity), or capacity "
            + "is negative")
    }
    let code = String(cString: agentCode)
    switch AvatarDownloads.fetch(code: code, directory: directory.map { String(cString: $0) }, background: true) {
    case .success(let path):
        return succeed(copyCString(path, to: pathOut, capacity: capacity))
    case .failure(.refused(let reason)):
        Credentials.recordRefusal(reason)
        return fail(ResultCode.refused, reason)
    case .failure(.outdated(let path, let reason)):
        return fail(Int32(-2), "\(path) (\(code)) is outdated: \(reason)")
    case .failure(let failure):
        return fail(Int32(-2), failure.reason)
    }
}
