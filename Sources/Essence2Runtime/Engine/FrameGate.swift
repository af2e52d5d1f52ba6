/// What an engine asks before it hands out a frame and tells after: the one door between the renderer and
/// whatever decides whether frames may flow. The metered session (Essence2Service's `MeteredSession`:
/// credentials, the service's HTTP client, usage reports) lives outside the runtime behind it, so the engine,
/// the renderer and the audio core carry no network code.
package protocol FrameGate: AnyObject, Sendable {
    /// Whether a frame may be handed out now.
    func permission() -> MeterPermission
    /// A frame of `kind` was handed out.
    func delivered(_ kind: FrameKind)
    /// The engine is done: the final report, waited for at most until `deadline` (monotonic ns; nil: not at all).
    func finish(waitUntil deadline: Int64?)
    /// Why frames are refused now; nil while they are allowed.
    var refusal: String? { get }
}
