#if canImport(Glibc)
import Glibc
#endif

/// A small persistent pool of threads that draw horizontal bands of one frame beside the render thread that
/// asks, so an engine rendering alone uses every core. One frame at a time: an engine that finds the pool busy
/// (another engine is drawing a split frame) draws its frame whole on its own thread, so several engines share
/// the cores without waiting on each other. No thread is started per frame; the workers sleep on a condition.
///
/// `@unchecked Sendable`: every field but the immutable `workers` is read and written under `mutex`.
final class BandPool: @unchecked Sendable {
    /// The process's pool: one worker fewer than the online processors (none on a single core).
    static let shared = BandPool(workers: max(0, min(15, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) - 1)))

    /// Threads beside the caller; a frame is split into `workers + 1` bands.
    let workers: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let workReady = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let workDone = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The band function of the frame being drawn; nil when idle.
    private var job: ((Int) -> Void)?
    /// Bands handed out so far, bands in all, and bands not finished yet.
    private var nextBand = 0
    private var bandCount = 0
    private var unfinished = 0
    /// Raised while one caller owns the pool.
    private var busy = false
    /// Increments with every job, so a worker takes each job once.
    private var generation: UInt64 = 0

    init(workers: Int) {
        self.workers = workers
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(workReady, nil)
        pthread_cond_init(workDone, nil)
        for _ in 0..<workers { startWorker() }
    }

    /// Runs `band(i)` for every i in 0..<bands, spread over the caller and the idle workers, and returns when
    /// all are done. Returns false without running anything when the pool is busy with another caller's frame
    /// or has no workers: then the caller draws the frame whole itself.
    func run(bands: Int, _ band: (Int) -> Void) -> Bool {
        guard workers > 0, bands > 1 else { return false }
        pthread_mutex_lock(mutex)
        if busy {
            pthread_mutex_unlock(mutex)
            return false
        }
        busy = true
        pthread_mutex_unlock(mutex)
        withoutActuallyEscaping(band) { escapable in
            pthread_mutex_lock(mutex)
            job = escapable
            nextBand = 0
            bandCount = bands
            unfinished = bands
            generation &+= 1
            pthread_cond_broadcast(workReady)
            // The caller draws bands too, then waits for the workers' last ones.
            drawBandsLocked()
            while unfinished > 0 { pthread_cond_wait(workDone, mutex) }
            job = nil
            busy = false
            pthread_mutex_unlock(mutex)
        }
        return true
    }

    /// Draws bands of the current job while any are left. Called and returns with the mutex held; each band
    /// is drawn without it. The job is released before its band is counted done, so no reference to it
    /// outlives `run`.
    private func drawBandsLocked() {
        while job != nil, nextBand < bandCount {
            let index = nextBand
            nextBand += 1
            var task = job
            pthread_mutex_unlock(mutex)
            task?(index)
            task = nil
            pthread_mutex_lock(mutex)
            unfinished -= 1
            if unfinished == 0 { pthread_cond_broadcast(workDone) }
        }
    }

    private func startWorker() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<BandPool>.fromOpaque(raw).takeRetainedValue().work()
            return nil
        }, context)
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<BandPool>.fromOpaque(context).release()
        }
    }

    /// A worker: waits for a job it has not taken part in, draws bands while there are any, repeats.
    private func work() {
        var seen: UInt64 = 0
        pthread_mutex_lock(mutex)
        while true {
            while job == nil || generation == seen { pthread_cond_wait(workReady, mutex) }
            seen = generation
            drawBandsLocked()
        }
    }
}
