// swift-tools-version:6.0
import PackageDescription

// The benchmarks of ModelObjects, kept out of the library's own package so that `swift build` and
// `swift test` at the root never compile them. Run from the repository root with:
//
//     swift run -c release --package-path Benchmarks

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ModelObjects", path: ".."),
        // The Swift peer, for the GRDB baselines of SQLiteBenchmarks (GRDBBenchmarks.swift). Its
        // GRDBSQLite target links the system SQLite, as the store's CSQLite does.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // Plain Swift classes and key-path tables: the baselines the library is measured against.
        .target(name: "PlainModels"),
        // The system SQLite, for the raw C-API baselines of SQLiteBenchmarks.
        .systemLibrary(name: "CBenchmarkSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The system libpq, for the raw baselines of PostgreSQLBenchmarks (the library's CLibPQ is no product).
        .systemLibrary(name: "CBenchmarkLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                "PlainModels",
                "CBenchmarkSQLite",
                "CBenchmarkLibPQ",
                .product(name: "SampleModels", package: "ModelObjects"),
                .product(name: "ModelObjects", package: "ModelObjects"),
                .product(name: "ManagedObjects", package: "ModelObjects"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ]
)
