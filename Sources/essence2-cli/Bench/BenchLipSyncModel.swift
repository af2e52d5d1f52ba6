import Essence2Runtime

/// The size of the learned lip-sync model the library ships, as `essence2 bench` reports it.
struct BenchLipSyncModel: Codable {
    var members = ShippedLipSyncModel.members
    var values = ShippedLipSyncModel.values
    var bytes = ShippedLipSyncModel.bytes
}
