import Essence2Runtime

/// One prepared step of a model's execution plan; tensors are referred to by arena offset.
enum TFLiteLayer: Sendable {
    case conv(TFLiteConvLayer)
    case depthwise(TFLiteDepthwiseLayer)
    case maxPool(TFLitePoolLayer)
    case binary(TFLiteBinaryLayer)
    case clamp(TFLiteClampLayer)
    case copy(TFLiteCopyLayer)
    case pad(TFLitePadLayer)
    case concat(TFLiteConcatLayer)

    func run(_ arena: UnsafeMutablePointer<Float>, _ scratch: UnsafeMutablePointer<Float>) {
        switch self {
        case .conv(let layer): layer.run(arena, scratch)
        case .depthwise(let layer): layer.run(arena)
        case .maxPool(let layer): layer.run(arena)
        case .binary(let layer): layer.run(arena)
        case .clamp(let layer): layer.run(arena)
        case .copy(let layer): layer.run(arena)
        case .pad(let layer): layer.run(arena)
        case .concat(let layer): layer.run(arena)
        }
    }
}
