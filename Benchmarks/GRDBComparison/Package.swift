// swift-tools-version:6.0
import PackageDescription

// The SQLite store against GRDB, the Swift peer, on the same work. Kept apart from the main
// benchmark package (and from CI) because it depends on GRDB:
//
//     swift run -c release --package-path Benchmarks/GRDBComparison

let package = Package(
    name: "GRDBComparison",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ModelObjects", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "GRDBComparison",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ManagedObjects", package: "ModelObjects"),
                .product(name: "SampleModels", package: "ModelObjects"),
            ]),
    ]
)
