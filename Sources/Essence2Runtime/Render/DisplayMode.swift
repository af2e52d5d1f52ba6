/// What part of the portrait a frame shows.
package enum DisplayMode: Int32, Sendable, CaseIterable {
    /// The whole portrait at its own size.
    case full = 0
    /// A square crop around the head (`Avatar.headBox`).
    case head = 1
}
