import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Models that are not what the interpreter supports, or that contradict themselves, are rejected at load with
/// a message naming the problem; wrong inputs are rejected by `invoke`.
@Suite struct TFLiteValidationTests {
    typealias B = TFLiteModelBuilder

    static func loadError(_ builder: B) -> String? {
        do {
            _ = try TFLiteModel(bytes: builder.bytes())
            return nil
        } catch {
            return error.description
        }
    }

    /// x [1, 2, 2, 1] -> RELU -> y, a valid base to spoil.
    static func reluGraph() -> B {
        var b = B()
        let x = b.tensor([1, 2, 2, 1]), y = b.tensor([1, 2, 2, 1])
        b.op(TFLiteOperator.relu, [x], [y])
        b.inputs = [x]; b.outputs = [y]
        return b
    }

    @Test func unsupportedBuiltinOperatorIsRejectedByName() throws {
        var b = Self.reluGraph()
        b.operators[0].code = 14
        let message = try #require(Self.loadError(b))
        #expect(message.contains("LOGISTIC") && message.contains("not supported"))
    }

    @Test func customOperatorIsRejectedWithItsName() throws {
        var b = Self.reluGraph()
        b.operators[0].code = TFLiteOperator.custom
        b.operators[0].custom = "Convolution2DTransposeBias"
        #expect(try #require(Self.loadError(b)).contains("Convolution2DTransposeBias"))
    }

    @Test func segmentationModelIsRejectedForItsUnsupportedOperators() throws {
        let bytes = try #require(TFLiteFixtures.model("selfie_segmentation.tflite"))
        #expect(throws: TFLiteError.self) { try TFLiteModel(bytes: bytes) }
        do { _ = try TFLiteModel(bytes: bytes) } catch { #expect(error.description.contains("not supported")) }
    }

    @Test func convolutionWhoseFilterDoesNotMatchTheInputChannelsIsRejected() throws {
        var b = B()
        let x = b.tensor([1, 2, 2, 3]), w = b.tensor([4, 1, 1, 2], floats: .init(repeating: 1, count: 8))
        let y = b.tensor([1, 2, 2, 4])
        b.op(TFLiteOperator.conv2D, [x, w], [y], optionsType: 1, options: B.convOptions(same: true, stride: 1))
        b.inputs = [x]; b.outputs = [y]
        #expect(try #require(Self.loadError(b)).contains("input channels"))
    }

    @Test func convolutionWithARuntimeFilterIsRejected() throws {
        var b = B()
        let x = b.tensor([1, 2, 2, 1]), w = b.tensor([1, 1, 1, 1]), y = b.tensor([1, 2, 2, 1])
        b.op(TFLiteOperator.conv2D, [x, w], [y], optionsType: 1, options: B.convOptions(same: true, stride: 1))
        b.inputs = [x, w]; b.outputs = [y]
        #expect(try #require(Self.loadError(b)).contains("constant"))
    }

    @Test func declaredOutputShapeThatDisagreesWithTheOperatorIsRejected() throws {
        var b = B()
        let x = b.tensor([1, 4, 4, 1]), y = b.tensor([1, 3, 3, 1])
        b.op(TFLiteOperator.maxPool2D, [x], [y], optionsType: 5, options: B.poolOptions(same: false, stride: 2, filter: 2))
        b.inputs = [x]; b.outputs = [y]
        #expect(try #require(Self.loadError(b)).contains("[1, 2, 2, 1]"))
    }

    @Test func zeroStrideIsRejected() throws {
        var b = B()
        let x = b.tensor([1, 4, 4, 1]), y = b.tensor([1, 2, 2, 1])
        b.op(TFLiteOperator.maxPool2D, [x], [y], optionsType: 5, options: B.poolOptions(same: false, stride: 0, filter: 2))
        b.inputs = [x]; b.outputs = [y]
        #expect(try #require(Self.loadError(b)).contains("stride"))
    }

    @Test func optionsOfTheWrongUnionTypeAreRejected() throws {
        var b = B()
        let x = b.tensor([1, 4, 4, 1]), y = b.tensor([1, 2, 2, 1])
        b.op(TFLiteOperator.maxPool2D, [x], [y], optionsType: 1, options: B.poolOptions(same: false, stride: 2, filter: 2))
        b.inputs = [x]; b.outputs = [y]
        #expect(try #require(Self.loadError(b)).contains("Pool2DOptions"))
    }

    @Test func constantWhoseBufferIsShorterThanItsShapeIsRejected() throws {
        var b = B()
        let x = b.tensor([1, 1, 1, 2]), alpha = b.tensor([2], floats: [1]), y = b.tensor([1, 1, 1, 2])
        b.op(TFLiteOperator.prelu, [x, alpha], [y])
        b.inputs = [x]; b.outputs = [y]
        #expect(try #require(Self.loadError(b)).contains("needs 8 bytes"))
    }

    @Test func operatorReadingATensorNoOperatorWroteIsRejected() throws {
        var b = B()
        let x = b.tensor([2]), ghost = b.tensor([2]), y = b.tensor([2])
        b.op(TFLiteOperator.add, [x, ghost], [y])
        b.inputs = [x]; b.outputs = [y]
        #expect(try #require(Self.loadError(b)).contains("before any operator writes it"))
    }

    @Test func tensorIndexOutOfRangeIsRejected() throws {
        var b = Self.reluGraph()
        b.operators[0].inputs = [7]
        #expect(try #require(Self.loadError(b)).contains("refers to tensor 7"))
    }

    @Test func hugeOrNegativeShapesAreRejected() throws {
        var b = Self.reluGraph()
        b.tensors[0].shape = [65_536, 65_536, 64]
        #expect(try #require(Self.loadError(b)).contains("too large shape"))
        b.tensors[0].shape = [1, -2, 2, 1]
        #expect(try #require(Self.loadError(b)).contains("too large shape"))
    }

    @Test func activationsBeyondTheMemoryLimitAreRejectedBeforeAnyAllocation() throws {
        var b = B()
        let x = b.tensor([1, 4096, 4096, 1]), y = b.tensor([1, 4096, 4096, 1])
        b.op(TFLiteOperator.relu, [x], [y])
        b.inputs = [x]; b.outputs = [y]
        #expect(try #require(Self.loadError(b)).contains("memory"))
    }

    @Test func filesThatAreNotTFLiteModelsAreRejected() throws {
        #expect(throws: TFLiteError.self) { try TFLiteModel(bytes: []) }
        #expect(throws: TFLiteError.self) { try TFLiteModel(bytes: Array("not a model at all".utf8)) }
        var bytes = Self.reluGraph().bytes()
        bytes[4] = 0x58
        #expect(throws: TFLiteError.self) { try TFLiteModel(bytes: bytes) }
        #expect(throws: TFLiteError.self) { try TFLiteModel(bytes: [0xFF, 0xFF, 0xFF, 0x7F, 0x54, 0x46, 0x4C, 0x33]) }
    }

    @Test func invokeRejectsWrongInputCountOrShapeAndStillRunsAfterwards() throws {
        var interpreter = try TFLiteInterpreter(model: TFLiteModel(bytes: Self.reluGraph().bytes()))
        #expect(interpreter.model.inputShapes == [[1, 2, 2, 1]] && interpreter.model.outputShapes == [[1, 2, 2, 1]])
        #expect(throws: TFLiteError.self) { try interpreter.invoke([]) }
        #expect(throws: TFLiteError.self) { try interpreter.invoke([TFLiteTensor(shape: [1, 2, 2, 2], values: .init(repeating: 0, count: 8))]) }
        #expect(throws: TFLiteError.self) { try interpreter.invoke([TFLiteTensor(shape: [1, 2, 2, 1], values: [1, 2, 3])]) }
        let values: [Float] = [-1, 2, -3, 4]
        #expect(try interpreter.invoke([TFLiteTensor(shape: [1, 2, 2, 1], values: values)])[0].values == [0, 2, 0, 4])
        let fast = try values.withUnsafeBufferPointer { try interpreter.invoke($0) }
        #expect(fast[0].values == [0, 2, 0, 4])
        #expect(throws: TFLiteError.self) { try [Float](repeating: 0, count: 3).withUnsafeBufferPointer { try interpreter.invoke($0) } }
    }
}
