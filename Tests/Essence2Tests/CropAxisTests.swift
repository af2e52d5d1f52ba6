import Testing
@testable import Essence2Authoring

/// The character finder's crop sampler, one axis at a time (CropAxis): the weights each crop pixel gives the
/// picture's pixels, as tools/character/common.py sample_crop's axis matrix.
struct CropAxisTests {
    /// A crop inside the picture: every crop pixel's weights sum to 1, and its run lies inside the picture.
    @Test(arguments: [(0.0, 96.0, 1), (10.5, 300.0, 4), (3.25, 1152.0, 12), (0.3, 50.0, 1)])
    func weightsInsideThePictureSumToOne(origin: Double, side: Double, k: Int) {
        let limit = 2000
        let axis = CropAxis(origin: origin, side: side, size: 96, samples: k, limit: limit)
        for o in 1..<95 {
            #expect(abs(axis.weights[o].reduce(0, +) - 1) < 1e-5, "crop pixel \(o)")
            #expect(axis.first[o] >= 0 && axis.first[o] + axis.weights[o].count <= limit)
        }
        #expect(axis.span != nil)
    }

    /// One sample a pixel on a crop of the picture's own size at a whole origin: each crop pixel is one picture
    /// pixel.
    @Test func oneSampleAtTheSameScaleIsThePixelItself() {
        let axis = CropAxis(origin: 7, side: 96, size: 96, samples: 1, limit: 200)
        for o in 0..<96 {
            let run = axis.weights[o]
            let at = run.firstIndex { $0 > 0.999 }
            #expect(at.map { axis.first[o] + $0 } == 7 + o)
            #expect(run.reduce(0, +) > 0.999 && run.reduce(0, +) < 1.001)
        }
    }

    /// k samples over a footprint of k pixels whose centres they hit: the mean of those k pixels (a box filter).
    @Test func aFullFootprintIsABoxFilter() {
        let axis = CropAxis(origin: 0, side: 96 * 12, size: 96, samples: 12, limit: 96 * 12)
        for o in 0..<96 {
            var weights = [Float](repeating: 0, count: 96 * 12)
            for (j, w) in axis.weights[o].enumerated() { weights[axis.first[o] + j] += w }
            for i in 0..<(96 * 12) {
                #expect(abs(weights[i] - ((i / 12 == o) ? 1 / 12 : 0)) < 1e-6)
            }
        }
    }

    /// Outside the picture nothing is read: a crop wholly beside it has no run and no span; one half over its
    /// edge reads only the pixels inside, weighing them as much as a crop inside would.
    @Test func outsideThePictureNothingIsRead() {
        let beside = CropAxis(origin: 500, side: 96, size: 96, samples: 1, limit: 100)
        #expect(beside.span == nil && beside.weights.allSatisfy(\.isEmpty))
        let edge = CropAxis(origin: -48, side: 96, size: 96, samples: 1, limit: 100)
        #expect(edge.weights[10].isEmpty)
        #expect(abs(edge.weights[60].reduce(0, +) - 1) < 1e-6)
        #expect(edge.span == 0..<48)
        let nonFinite = CropAxis(origin: .nan, side: 96, size: 96, samples: 2, limit: 100)
        #expect(nonFinite.span == nil)
    }
}
