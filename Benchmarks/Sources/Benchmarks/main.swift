import Foundation

// Runs every benchmark group and prints one Markdown table per group.
//
//     swift run -c release --package-path Benchmarks
//     swift run -c release --package-path Benchmarks Benchmarks [--quick] [--profile] [filter...]
//
// A filter keeps the benchmarks whose name contains it; --quick takes fewer, shorter samples;
// --profile runs only the measured side of the selected benchmarks for a few seconds each and
// prints no table, for `perf record`.

/// The groups, in report order. Add new groups here.
let groups: [any BenchmarkGroup.Type] = [
    KeyValueCodingBenchmarks.self,
    ManagedAccessorBenchmarks.self,
    KeyValueObservingBenchmarks.self,
    ObservationBenchmarks.self,
    PredicateBenchmarks.self,
]

// The PostgreSQL multi-writer benchmark launches this executable again as its writers.
if CommandLine.arguments.dropFirst().first == PostgreSQLWriterBenchmarks.writerFlag {
    PostgreSQLWriterBenchmarks.runWriter(Array(CommandLine.arguments.dropFirst(2)))
}
// The writer process RemoteMergeBenchmarks starts: `Benchmarks --remote-merge-writer <URL> <count>`.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == RemoteMergeBenchmarks.writerFlag,
   let url = URL(string: CommandLine.arguments[2]) {
    exit(RemoteMergeBenchmarks.runWriter(url: url, count: Int(CommandLine.arguments[3]) ?? RemoteMergeBenchmarks.saves))
}

var configuration = RunConfiguration()
var filters: [String] = []
var profiling = false
for argument in CommandLine.arguments.dropFirst() {
    switch argument {
    case "--quick":
        configuration.samples = 7
        configuration.sampleDuration = 0.004
    case "--profile":
        profiling = true
    case "-h", "--help":
        print("usage: Benchmarks [--quick] [--profile] [filter...]")
        exit(0)
    default:
        filters.append(argument)
    }
}

#if DEBUG
print("warning: this is a debug build; run with `swift run -c release --package-path Benchmarks`")
#endif

let dateFormatter = DateFormatter()
dateFormatter.locale = Locale(identifier: "en_US_POSIX")
dateFormatter.dateFormat = "yyyy-MM-dd HH:mm:ss ZZZZZ"

print("# ModelObjects benchmarks")
print()
print("- Machine: \(machineDescription())")
print("- Date: \(dateFormatter.string(from: Date()))")
print("- Samples: \(configuration.samples) of each side, about \(Int(configuration.sampleDuration * 1000)) ms each, interleaved; ratio and verdict use the best sample of each side")
print()

let started = now()
for group in groups {
    let benchmarks = group.makeBenchmarks().filter { benchmark in
        filters.isEmpty || filters.contains { benchmark.name.localizedCaseInsensitiveContains($0) }
    }
    guard !benchmarks.isEmpty else { continue }
    if profiling {
        for benchmark in benchmarks {
            print("profiling \(benchmark.name)")
            let iterations = calibrate(benchmark.measured, duration: 3)
            _ = time(benchmark.measured, iterations: iterations)
        }
        continue
    }
    let results = benchmarks.map { run($0, configuration: configuration) }
    printTable(title: group.title, results: results)
}
if !profiling && (filters.isEmpty || filters.contains { "archiving".localizedCaseInsensitiveContains($0) }) {
    ArchivingBenchmarks.report()
}
if !profiling && (filters.isEmpty || filters.contains { "managed".localizedCaseInsensitiveContains($0) }) {
    ManagedObjectBenchmarks.report()
}
if !profiling && (filters.isEmpty || filters.contains { "sqlite".localizedCaseInsensitiveContains($0) }) {
    SQLiteBenchmarks.report()
}
if !profiling && (filters.isEmpty || filters.contains { "postgres".localizedCaseInsensitiveContains($0) }) {
    PostgreSQLBenchmarks.report()
}
if !profiling && (filters.isEmpty || filters.contains { "remote merge".localizedCaseInsensitiveContains($0) }) {
    RemoteMergeBenchmarks.report()
}
if !profiling && (filters.isEmpty || filters.contains { "fetched".localizedCaseInsensitiveContains($0) }) {
    FetchedResultsBenchmarks.report()
}
if !profiling && (filters.isEmpty || filters.contains { "batch requests".localizedCaseInsensitiveContains($0) }) {
    BatchRequestBenchmarks.report()
}
print(String(format: "Total time: %.1f s", Double(now() - started) / 1e9))
