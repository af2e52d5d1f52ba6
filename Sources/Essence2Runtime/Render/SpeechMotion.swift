import Glibc

/// Head, brow, gaze and blink motion that follows the voice, one frame at a time: a deterministic state machine
/// over the frames' `SpeechCue`s (loudness and pitch), the same for the same audio and seed.
///
/// - Emphasis: a frame louder than the talker's running level, or higher than the talker's running pitch,
///   is emphatic. Where emphasis rises (at most one in 0.6 s, three in four of them), the head nods: a dip
///   and return over about half a second. The brows lift with emphasis and settle after it.
/// - Phrasing: a pause of 240 ms ends a phrase; the next voiced sound starts one. Each phrase turns the head a
///   little to a new side and tilt (slowly, over about a second), and a third of them begin with the eyes
///   glancing aside for half a second. A phrase's end brings a blink two times in three, and the head part
///   way back towards the centre.
/// - Everything moves through critically damped springs, so nothing jumps or jitters from frame to frame,
///   and is shown through an envelope that rises over 4 frames as a reply begins and falls to zero over the
///   ramp after it (`fade(remaining:)`), so speech motion starts and ends on the idle pose.
package struct SpeechMotion: Sendable, Equatable {
    /// Nods: emphasis from which one starts, their spacing (frames) and size (`FacePose.headPitch` units).
    static let nodThreshold: Float = 0.3
    static let nodSpacing = 15
    static let nodFrames = 3
    /// A pause this long (frames) ends a phrase.
    static let phrasePause = 6
    /// Frames between blinks at the least.
    static let blinkSpacing = 30

    /// Seeds the choices of turns, glances, nods and blinks (the engine's idle-motion seed).
    package var seed: UInt64
    /// How much of the motion is shown, 0 ... 1.
    private(set) var envelope: Float = 0

    // The talker's voice so far (kept across replies: the same voice).
    /// Running means over voiced frames (0 before the first): level (dBFS) and pitch (log2 Hz).
    private var meanLevel: Float = 0
    private var meanPitch: Float = 0
    private var peakLevel = SpeechCue.floorLevel
    /// The background's level: follows quieter frames at once, louder ones by 0.1 dB a frame.
    private var noiseLevel: Float = -60
    private var fastLevel = SpeechCue.floorLevel
    private var emphasis: Float = 0

    // Phrasing.
    private var phrase: UInt64 = 0
    private var inPhrase = false
    private var quietFrames = 0
    private var sinceNod = 1000
    private var nodCount: UInt64 = 0
    private var sinceBlink = 1000
    private var nodHold = 0
    private var nodSize: Float = 0
    private var glanceHold = 0
    private var blinkStep = -1

    // Targets and springs.
    private var turnTarget: Float = 0
    private var tiltTarget: Float = 0
    private var glanceTarget = SIMD2<Float>.zero
    private var nod = Spring(omega: 11)
    private var turn = Spring(omega: 4)
    private var tilt = Spring(omega: 4)
    private var brow = Spring(omega: 9)
    private var gaze = SIMD2<Float>.zero

    package init(seed: UInt64) { self.seed = seed }

    /// The motion of the next speech frame, whose audio is `cue`.
    package mutating func advance(_ cue: SpeechCue) -> SpeechGesture {
        if envelope == 0 { restartMotion() }
        envelope = min(1, envelope + 0.25)
        listen(to: cue)
        return move()
    }

    /// The motion of the next frame of the ramp after a reply, `remaining` frames (this one included) before
    /// the ramp ends: the voice is silent and the motion fades, to nothing on the last frame.
    package mutating func fade(remaining: Int) -> SpeechGesture {
        let r = Float(max(remaining, 1))
        envelope = max(0, envelope * (r - 1) / r)
        listen(to: .silence)
        return move()
    }

    /// Springs and targets back at rest, for a reply that starts from the idle pose.
    private mutating func restartMotion() {
        nod.reset()
        turn.reset()
        tilt.reset()
        brow.reset()
        turnTarget = 0
        tiltTarget = 0
        glanceTarget = .zero
        gaze = .zero
        nodHold = 0
        glanceHold = 0
        blinkStep = -1
        emphasis = 0
        inPhrase = false
        quietFrames = Self.phrasePause
    }

    /// Updates the voice statistics and phrasing from one frame's cue.
    private mutating func listen(to cue: SpeechCue) {
        let level = cue.level.isFinite ? min(max(cue.level, SpeechCue.floorLevel), 0) : SpeechCue.floorLevel
        peakLevel = max(level, peakLevel - 0.25)
        noiseLevel = min(level, noiseLevel + 0.1)
        fastLevel += 0.5 * (level - fastLevel)
        // Speaking: well above the background and not far below the recent peak.
        let active = level > max(peakLevel - 30, noiseLevel + 12, -70)
        sinceNod += 1
        sinceBlink += 1

        var rise: Float = 0
        if cue.isVoiced, cue.pitch.isFinite, active {
            let logPitch = log2f(min(max(cue.pitch, 50), 600))
            if meanPitch == 0 {
                meanPitch = logPitch
                meanLevel = level
            }
            rise = logPitch - meanPitch
            meanPitch += 0.03 * rise
            meanLevel += 0.03 * (level - meanLevel)
        }
        let loud = meanPitch == 0 ? 0 : clamp01((fastLevel - meanLevel - 0.5) / 5)
        let high = clamp01((rise - 0.03) / 0.2)
        let raw = active ? min(1, 0.75 * loud + 0.5 * high) : 0
        let before = emphasis
        emphasis += 0.4 * (raw - emphasis)

        if active {
            quietFrames = 0
            if !inPhrase, cue.isVoiced { startPhrase() }
        } else {
            quietFrames += 1
            if inPhrase, quietFrames >= Self.phrasePause { endPhrase() }
        }
        if before < Self.nodThreshold, emphasis >= Self.nodThreshold, sinceNod >= Self.nodSpacing {
            sinceNod = 0
            if SeededNoise.unit(seed, 20, nodCount) < 0.8 {
                nodHold = Self.nodFrames
                nodSize = 0.6 + 0.6 * emphasis
                // A beat often carries the head a little further to one side.
                let drift = Float(SeededNoise.unit(seed, 26, nodCount)) - 0.5
                turnTarget = min(max(turnTarget + 0.4 * drift, -0.7), 0.7)
            }
            nodCount &+= 1
        }
    }

    private mutating func startPhrase() {
        inPhrase = true
        phrase &+= 1
        let seed = self.seed, phrase = self.phrase
        let u = { (stream: UInt64) in Float(SeededNoise.unit(seed, stream, phrase)) }
        turnTarget = (u(21) * 2 - 1) * 0.6
        tiltTarget = (u(22) * 2 - 1) * 0.02
        if u(23) < 0.33 {
            glanceTarget = SIMD2(u(24) < 0.5 ? -0.6 : 0.6, -0.25)
            glanceHold = 12
        }
    }

    private mutating func endPhrase() {
        inPhrase = false
        turnTarget *= 0.4
        tiltTarget *= 0.4
        if sinceBlink >= Self.blinkSpacing, blinkStep < 0, Float(SeededNoise.unit(seed, 25, phrase)) < 0.67 {
            blinkStep = 0
            sinceBlink = 0
        }
    }

    /// Steps the springs and returns the frame's gesture.
    private mutating func move() -> SpeechGesture {
        nod.step(toward: nodHold > 0 ? nodSize : 0)
        nodHold = max(0, nodHold - 1)
        turn.step(toward: turnTarget)
        tilt.step(toward: tiltTarget)
        brow.step(toward: min(1, clamp01((emphasis - 0.25) / 0.5) * 0.6 + (nodHold > 0 ? 0.15 : 0)))
        let glance = glanceHold > 0 ? glanceTarget : .zero
        glanceHold = max(0, glanceHold - 1)
        gaze += (glance - gaze) * 0.6
        var lids: Float = 0
        if blinkStep >= 0 {
            lids = IdleMotion.blinkProfile[blinkStep]
            blinkStep = blinkStep + 1 < IdleMotion.blinkProfile.count ? blinkStep + 1 : -1
        }
        let e = envelope
        return SpeechGesture(
            headPitch: nod.value * e, headYaw: turn.value * e, headRoll: tilt.value * e,
            browRaise: clamp01(brow.value) * e, gaze: gaze * e, blink: lids * e)
    }
}
