#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

// A small benchmark harness: a benchmark is a measured workload, a baseline workload and a
// target; the runner times both sides in interleaved samples and reports the best and the median
// time per operation.

// MARK: - Sinks

/// Consumes a value so that the optimizer cannot delete the work that produced it.
///
/// Not inlined and not optimized: the call survives, and the value must be materialized.
@inline(never) @_optimize(none)
func blackHole<T>(_ value: T) {}

/// Returns its argument through a call the optimizer cannot see through, so that loop-invariant
/// inputs are not hoisted out of the timed loop.
@inline(never) @_optimize(none)
func identity<T>(_ value: T) -> T { value }

// MARK: - Fixtures

/// Objects that a timed loop cycles through, handed out without reference counting.
///
/// Reading a class reference out of an array and passing it to a function the optimizer cannot
/// see into costs a retain and a release (two atomic operations) in the caller. That cost belongs
/// to the benchmark loop, not to the operation measured, and it would fall on one side only when
/// the optimizer can see into the other side's callee; the pool avoids it on both sides.
struct Pool<Object: AnyObject> {
    /// Keeps the objects alive.
    let objects: [Object]
    private let references: [Unmanaged<Object>]
    private let mask: Int

    /// A pool of `objects`, whose count must be a power of two.
    init(_ objects: [Object]) {
        precondition(!objects.isEmpty && objects.count & (objects.count - 1) == 0, "pool size must be a power of two")
        self.objects = objects
        references = objects.map { Unmanaged.passUnretained($0) }
        mask = objects.count - 1
    }

    /// Calls `body` with the object for iteration `index` (cycling through the pool).
    @inline(__always) @discardableResult
    func with<Result>(_ index: Int, _ body: (Object) throws -> Result) rethrows -> Result {
        try references[index & mask]._withUnsafeGuaranteedRef(body)
    }

    /// Reads a `Double` of each iteration's object with `read` (cycling through the pool),
    /// folding the values' bits into one the optimizer must compute: the timed loop of a read.
    @inline(__always)
    func readEach(_ iterations: Int, _ read: (Object) -> Double) {
        var bits: UInt64 = 0
        for i in 0..<iterations { bits ^= with(i) { read($0) }.bitPattern }
        blackHole(bits)
    }
}

// MARK: - Benchmarks

/// What a benchmark must achieve.
enum Target: CustomStringConvertible {
    /// At most this many times the baseline's time per operation.
    case ratio(Double)
    /// At most this many nanoseconds per operation.
    case nanoseconds(Double)

    func isMet(measured: Double, baseline: Double) -> Bool {
        switch self {
        case .ratio(let ratio): measured <= ratio * baseline
        case .nanoseconds(let limit): measured <= limit
        }
    }

    var description: String {
        switch self {
        case .ratio(let ratio): "≤ \(formatNumber(ratio))x"
        case .nanoseconds(let limit): "≤ \(formatDuration(limit))"
        }
    }
}

/// A workload: runs the operation `iterations` times.
///
/// The loop lives inside the closure, so that the closure call is paid once per sample rather
/// than once per operation and the operation is optimized in its loop.
typealias Workload = (_ iterations: Int) -> Void

/// One line of the report: the library's operation, the same job done without the library, and
/// what the library must achieve.
struct Benchmark {
    /// What is measured, as it appears in the report.
    var name: String
    /// What the library must achieve.
    var target: Target
    /// What the baseline does, for the notes under the table.
    var baselineDescription: String
    /// True for lines added for context rather than asked for; the report marks them.
    var isSupplementary = false
    /// The library's operation.
    var measured: Workload
    /// The baseline's operation.
    var baseline: Workload
}

/// A group of benchmarks, one per source file: add a type conforming to this protocol and list it
/// in main.swift.
protocol BenchmarkGroup {
    /// The section title in the report.
    static var title: String { get }
    /// Builds the fixtures and the benchmarks of the group.
    static func makeBenchmarks() -> [Benchmark]
}

// MARK: - Measuring

/// How long and how often to measure.
struct RunConfiguration {
    /// The number of samples taken of each side; the report gives the best and the median.
    var samples = 60
    /// The wall-clock duration aimed at for one sample.
    var sampleDuration: Double = 0.004
    /// Time spent running each side before sampling.
    var warmUpDuration: Double = 0.05
}

/// Times of one side of a benchmark, in nanoseconds per operation.
struct Timing {
    var samples: [Double]
    var best: Double { samples.min() ?? .nan }
    var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

struct BenchmarkResult {
    var benchmark: Benchmark
    var measured: Timing
    var baseline: Timing

    /// Best against best: the least disturbed figures of a noisy machine.
    var ratio: Double { measured.best / baseline.best }
    var isMet: Bool { benchmark.target.isMet(measured: measured.best, baseline: baseline.best) }
}

/// The monotonic clock, in nanoseconds.
@inline(__always)
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// Seconds taken by `iterations` operations of `workload`.
func time(_ workload: Workload, iterations: Int) -> Double {
    let start = now()
    workload(iterations)
    let end = now()
    return Double(end - start) / 1e9
}

/// The number of operations that fill about `duration` seconds.
func calibrate(_ workload: Workload, duration: Double) -> Int {
    var iterations = 1
    while true {
        let elapsed = time(workload, iterations: iterations)
        if elapsed >= duration / 8 || iterations >= 1 << 40 {
            return max(1, Int(Double(iterations) * duration / max(elapsed, 1e-9)))
        }
        iterations *= 2
    }
}

/// Warms both sides up, then takes interleaved samples of each (alternating which goes first),
/// so that a disturbance from another process falls on both sides alike.
func run(_ benchmark: Benchmark, configuration: RunConfiguration) -> BenchmarkResult {
    let sides = [benchmark.measured, benchmark.baseline]
    for side in sides {
        let iterations = calibrate(side, duration: configuration.warmUpDuration)
        _ = time(side, iterations: iterations)
    }
    let iterations = sides.map { calibrate($0, duration: configuration.sampleDuration) }
    var samples: [[Double]] = [[], []]
    for round in 0..<configuration.samples {
        for index in round % 2 == 0 ? [0, 1] : [1, 0] {
            let seconds = time(sides[index], iterations: iterations[index])
            samples[index].append(seconds * 1e9 / Double(iterations[index]))
        }
    }
    return BenchmarkResult(
        benchmark: benchmark, measured: Timing(samples: samples[0]), baseline: Timing(samples: samples[1]))
}

// MARK: - Reporting

func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e6 ? String(Int(value)) : String(format: "%.2f", value)
}

/// A duration given in nanoseconds, in ns below 1 µs, in µs below 1 ms, in ms above.
func formatDuration(_ nanoseconds: Double) -> String {
    switch nanoseconds {
    case ..<10: String(format: "%.2f ns", nanoseconds)
    case ..<1_000: String(format: "%.1f ns", nanoseconds)
    case ..<1_000_000: String(format: "%.2f µs", nanoseconds / 1_000)
    default: String(format: "%.2f ms", nanoseconds / 1_000_000)
    }
}

/// The processor model and the number of processors, from /proc/cpuinfo where there is one.
func machineDescription() -> String {
    let processors = ProcessInfo.processInfo.activeProcessorCount
    var model = "unknown processor"
    if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
       let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
       let colon = line.firstIndex(of: ":") {
        model = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    #if os(Linux)
    let system = "Linux"
    #elseif os(macOS)
    let system = "macOS"
    #else
    let system = "unknown system"
    #endif
    #if arch(x86_64)
    let architecture = "x86_64"
    #elseif arch(arm64)
    let architecture = "arm64"
    #else
    let architecture = "unknown architecture"
    #endif
    return "\(model), \(processors) core\(processors == 1 ? "" : "s"), \(system) \(architecture)"
}

/// Prints the results of one group as a Markdown table.
func printTable(title: String, results: [BenchmarkResult]) {
    print("## \(title)")
    print()
    let header = ["Operation", "Time/op (best)", "(median)", "Baseline/op (best)", "(median)", "Ratio", "Target", "Met"]
    var rows = [header]
    for result in results {
        rows.append([
            result.benchmark.name + (result.benchmark.isSupplementary ? " †" : ""),
            formatDuration(result.measured.best),
            formatDuration(result.measured.median),
            formatDuration(result.baseline.best),
            formatDuration(result.baseline.median),
            String(format: "%.2fx", result.ratio),
            result.benchmark.target.description,
            result.isMet ? "yes" : "NO",
        ])
    }
    let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    func line(_ cells: [String]) -> String {
        "| " + zip(cells, widths).enumerated().map { index, pair in
            let padding = String(repeating: " ", count: pair.1 - pair.0.count)
            return index == 0 ? pair.0 + padding : padding + pair.0
        }.joined(separator: " | ") + " |"
    }
    print(line(rows[0]))
    print("|" + widths.enumerated().map { index, width in
        index == 0 ? ":" + String(repeating: "-", count: width + 1) : String(repeating: "-", count: width + 1) + ":"
    }.joined(separator: "|") + "|")
    for row in rows.dropFirst() { print(line(row)) }
    print()
    print("Baselines:")
    for result in results {
        print("- \(result.benchmark.name): \(result.benchmark.baselineDescription)")
    }
    if results.contains(where: \.benchmark.isSupplementary) {
        print()
        print("† Supplementary line, for context: not one of the targets asked for.")
    }
    print()
}
