import Testing

/// The tests that change what the whole process shares (the stored API secret, the service URL, environment
/// variables) are suites nested in this one, which runs its tests one at a time, so they never see each other's
/// settings. (Other suites run beside them; none of those depends on these settings being absent.)
@Suite(.serialized) struct GlobalStateTests {}
