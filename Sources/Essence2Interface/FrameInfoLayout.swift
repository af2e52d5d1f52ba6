import Essence2Runtime

/// `be_essence2_frame_info` of include/essence2.h (1.3), written field by field at its C offsets
/// (HeaderAgreementTests and integration/c check them against the header's offsetof).
enum FrameInfoLayout {
    static let size = 1344
    static let kind = 4, index = 8, reply = 16, replyFrame = 24, audioTime = 32, hasAudioTime = 40
    static let endsReply = 44, skipped = 48, bytes = 56, audioSamples = 60, audio = 64
    static let audioCapacity = StreamFormat.samplesPerFrame
    /// `be_expression2_frame_info` of include/expression2.h (1.4): the same fields, 800 samples of audio.
    static let expressionSize = 1664
    static let expressionAudioCapacity = FrameCadence.expression2.samplesPerFrame

    /// Writes `frame` into the caller's struct at `info` (its `size` already checked to be at least `size`).
    static func write(_ frame: Engine.TakenFrame, into info: UnsafeMutableRawPointer,
                      audioCapacity: Int = FrameInfoLayout.audioCapacity) {
        let record = frame.record
        info.storeBytes(of: Int32(record.kind.rawValue), toByteOffset: kind, as: Int32.self)
        info.storeBytes(of: record.sequence, toByteOffset: index, as: Int64.self)
        info.storeBytes(of: record.reply, toByteOffset: reply, as: Int64.self)
        info.storeBytes(of: Int64(record.replyFrame), toByteOffset: replyFrame, as: Int64.self)
        info.storeBytes(of: record.audioTime ?? -1, toByteOffset: audioTime, as: Double.self)
        info.storeBytes(of: record.audioTime == nil ? 0 : 1, toByteOffset: hasAudioTime, as: Int32.self)
        info.storeBytes(of: record.endsReply ? 1 : 0, toByteOffset: endsReply, as: Int32.self)
        info.storeBytes(of: record.skippedBefore, toByteOffset: skipped, as: Int64.self)
        info.storeBytes(of: Int32(clamping: frame.bytes), toByteOffset: bytes, as: Int32.self)
        let count = min(record.audio.count, audioCapacity)
        info.storeBytes(of: Int32(count), toByteOffset: audioSamples, as: Int32.self)
        let samples = (info + audio).bindMemory(to: Int16.self, capacity: audioCapacity)
        record.audio.withUnsafeBufferPointer { source in
            for i in 0..<count { samples[i] = source[i] }
        }
        for i in count..<audioCapacity { samples[i] = 0 }
    }
}
