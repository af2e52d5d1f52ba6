import Essence2Runtime

/// Every live engine, by the handle given to C. A handle is checked here before use, so an unknown,
/// garbage or destroyed handle is an error code, never a dereference.
enum HandleRegistry {
    private static let live = Locked<[UInt: Engine]>([:])

    /// Boxes `engine` and returns its new handle.
    static func register(_ engine: Engine) -> OpaquePointer {
        let handle = OpaquePointer(Unmanaged.passRetained(engine).toOpaque())
        live.withLock { $0[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))] = engine }
        return handle
    }

    /// The engine of a live handle; nil for NULL, unknown or destroyed handles.
    static func engine(_ handle: OpaquePointer?) -> Engine? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return live.withLock { $0[key] }
    }

    /// Forgets a handle and releases its box; false when it was not live.
    static func unregister(_ handle: OpaquePointer?) -> Engine? {
        guard let handle else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        guard let engine = live.withLock({ $0.removeValue(forKey: key) }) else { return nil }
        Unmanaged<Engine>.fromOpaque(UnsafeRawPointer(handle)).release()
        return engine
    }

    /// All live engines.
    static func all() -> [Engine] {
        live.withLock { Array($0.values) }
    }
}

/// Runs `body` with the engine of the live handle `h`; for a NULL, unknown or destroyed handle it records the
/// reason and returns `code` instead (the thunks' common first step).
func withEngine<Code: BinaryInteger>(_ h: OpaquePointer?, failing code: Code, _ body: (Engine) -> Code) -> Code {
    guard let engine = HandleRegistry.engine(h) else { return fail(code, unknownHandle) }
    return body(engine)
}
