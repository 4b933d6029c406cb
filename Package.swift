// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ModelObjects",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ModelObjects", targets: ["ModelObjects"]),
        .library(name: "ManagedObjects", targets: ["ManagedObjects"]),
        .library(name: "SampleModels", targets: ["SampleModels"]),
    ],
    targets: [
        .target(name: "ModelObjects"),
        // The system SQLite (libsqlite3-dev on Debian and Ubuntu; part of macOS), used only by
        // Sources/ManagedObjects/CInterop/SQLite/.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // The system libpq (libpq-dev on Debian and Ubuntu, libpq on Homebrew), used only by
        // Sources/ManagedObjects/CInterop/PostgreSQL/.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .target(name: "ManagedObjects", dependencies: ["ModelObjects", "CSQLite", "CLibPQ"]),
        .target(name: "SampleModels", dependencies: ["ModelObjects", "ManagedObjects"]),
        .executableTarget(name: "employees", dependencies: ["ModelObjects", "ManagedObjects", "SampleModels"]),
        // Fuzz targets (run under libFuzzer by .ci/fuzz); built here to replay inputs and write seeds.
        .executableTarget(name: "ArchiveFuzzer", dependencies: ["ModelObjects", "SampleModels"], exclude: ["Archive.dict"]),
        .executableTarget(
            name: "PredicateFuzzer", dependencies: ["ModelObjects", "SampleModels"], exclude: ["PredicateFormat.dict"]),
        .executableTarget(
            name: "ModelFileFuzzer", dependencies: ["ModelObjects", "ManagedObjects"], exclude: ["ModelFile.dict"]),
        .executableTarget(
            name: "StoreFileFuzzer", dependencies: ["ModelObjects", "ManagedObjects"], exclude: ["StoreFile.dict"]),
        // A save loop the crash tests kill with SIGKILL; not a product.
        .executableTarget(name: "StoreCrashWorker", dependencies: ["ManagedObjects"]),
        .testTarget(
            name: "ModelObjectsTests", dependencies: ["ModelObjects", "SampleModels"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ManagedObjectsTests", dependencies: ["ManagedObjects", "ModelObjects", "SampleModels", "StoreCrashWorker"],
            resources: [.copy("Fixtures")]),
    ]
)
