import Essence2Runtime
import Essence2Authoring
import FoundationEssentials

extension AvatarCommand {
    /// `essence2 avatar build IMAGE --character [--points FILE.json] [-o X.imx] [--size WxH] [--background B]`.
    static func buildCharacter(_ scanned: ArgumentScanner.Result, picture: String?, output: String?, name: String?,
                               size: (width: Int, height: Int)?, seed: UInt64, source: String?, licence: String?) -> Int32 {
        guard let picture else { return usageError("build", "a picture is required: essence2 avatar build IMAGE --character") }
        for flag in ["--landmarks", "--mesh", "--face", "--models"] where scanned.value(flag) != nil {
            return usageError("build", "\(flag) is for photoreal portraits; a character takes --points")
        }
        if scanned.has("--fit") { return usageError("build", "--fit is for photoreal portraits") }
        let output = output ?? (URL(fileURLWithPath: picture).deletingPathExtension().lastPathComponent + ".imx")
        do {
            return try buildCharacter(picture: picture, output: output, points: scanned.value("--points"),
                                      savePoints: scanned.value("--save-points"), background: scanned.value("--background"),
                                      name: name, size: size, seed: seed, source: source, licence: licence)
        } catch let error as CLIError {
            printError("essence2 avatar build: \(error)")
            return error.status
        } catch {
            printError("essence2 avatar build: \(error)")
            return ExitStatus.failure
        }
    }

    /// Builds the character avatar of `picture` into `output` from a points file (`pointsPath`) or, without one,
    /// from the point finder's proposal; what `avatar build --character` and `avatar rig --points` run.
    static func buildCharacter(picture: String, output: String, points pointsPath: String?, savePoints: String?,
                               background: String?, name: String?, size: (width: Int, height: Int)?,
                               seed: UInt64, source: String?, licence: String?,
                               builder: String = "essence2 avatar build --character") throws -> Int32 {
        try FileCheck.requireWritableOutput(output, option: "-o")
        if let savePoints { try FileCheck.requireWritableOutput(savePoints, option: "--save-points") }
        let image = try ImageDecoder.decode(path: picture, maxPixels: ImageDecoder.maxCharacterPixels)
        reportOrientation(of: image)
        let backdrop = try characterBackdrop(background)
        var info: [String: String] = ["builder": builder, "picture": URL(fileURLWithPath: picture).lastPathComponent]
        let points: CharacterPoints
        var unsure: String?
        if let pointsPath {
            points = try readCharacterPoints(pointsPath, width: image.width, height: image.height)
            info["points"] = "given: " + URL(fileURLWithPath: pointsPath).lastPathComponent
        } else {
            let found = try CharacterPointProposal.propose(bgr: image.bgr, alpha: image.alpha, width: image.width,
                                                           height: image.height)
            points = found.points
            unsure = found.doubt
            info["points"] = "found by \(found.finder) (confidence \(found.confidenceText))"
        }
        if let source { info["source"] = source }
        if let licence { info["licence"] = licence }
        let avatar = try makeCharacter(image: image, picture: picture, points: points, backdrop: backdrop, name: name,
                                       size: size, seed: seed)
        try writeCharacter(avatar, points: points, output: output, info: info)
        if let savePoints { try BinaryFile.write(points.jsonBytes(), to: savePoints) }
        if let unsure {
            printError("essence2 avatar build: not sure of the character's points (\(unsure)); \(output) holds the best guess. "
                + "Check and move them in the rig editor: essence2 avatar rig \(picture) -o \(output)")
            return ExitStatus.unsure
        }
        return ExitStatus.success
    }

    /// Reads a points file for a `width` x `height` picture; a bad one is a usage error naming the file.
    static func readCharacterPoints(_ path: String, width: Int, height: Int) throws -> CharacterPoints {
        do {
            return try CharacterPoints.decode(readSmallFile(path), width: width, height: height)
        } catch let error as AvatarFileError {
            throw CLIError("\(path): \(error.reason)", status: ExitStatus.usage)
        }
    }

    /// The character avatar of a decoded picture and its points (what is written, and what the rig editor's
    /// preview draws); a picture or points that make none throw the builder's reason, naming `picture`.
    static func makeCharacter(image: ImageBuffer, picture: String, points: CharacterPoints,
                              backdrop: CharacterAvatarBuilder.Backdrop, name: String?,
                              size: (width: Int, height: Int)?, seed: UInt64) throws(CLIError) -> Avatar {
        do {
            return try CharacterAvatarBuilder.build(
                name: name ?? URL(fileURLWithPath: picture).deletingPathExtension().lastPathComponent,
                bgr: image.bgr, alpha: image.alpha, width: image.width, height: image.height, points: points,
                size: size ?? CharacterAvatarBuilder.defaultSize, backdrop: backdrop, seed: seed)
        } catch {
            throw CLIError("\(picture): \(error)", status: ExitStatus.failure)
        }
    }

    /// Writes a character avatar made from `points` to `output` (atomically: an older file stays whole until the
    /// new one replaces it), reads it back and prints what was written.
    static func writeCharacter(_ avatar: Avatar, points: CharacterPoints, output: String,
                               info: [String: String]) throws {
        try AvatarFile.write(avatar, info: info, to: output)
        let check = try AvatarFile.read(path: output)  // what was written must read back
        let bytes = FileCheck.size(output) ?? 0
        print("wrote \(output): \(check.name), character, \(check.width)x\(check.height) at 20 frames a second, "
            + "mouth \(points.mouth.rawValue), \(bytes) bytes")
    }

    /// `--background`: "#RRGGBB", or a JPEG or PNG picture; nil: made from the character's own colours.
    static func characterBackdrop(_ value: String?) throws -> CharacterAvatarBuilder.Backdrop {
        guard let value else { return .fromPicture }
        if value.hasPrefix("#") {
            let hex = value.dropFirst()
            guard hex.count == 6, let rgb = UInt32(hex, radix: 16) else {
                throw CLIError("--background \(value) is not #RRGGBB or a picture file", status: ExitStatus.usage)
            }
            return .colour(SIMD3(UInt8(rgb & 0xFF), UInt8((rgb >> 8) & 0xFF), UInt8((rgb >> 16) & 0xFF)))
        }
        let picture = try ImageDecoder.decode(path: value)
        return .picture(bgr: picture.bgr, width: picture.width, height: picture.height)
    }
}
