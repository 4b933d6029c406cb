import Foundation

// Loading models that Xcode's model editor wrote: a versioned bundle (`.xcdatamodeld`), one
// version (`.xcdatamodel`), or the `contents` XML file inside a version.

extension ManagedObjectModel {
    /// Loads a model that Xcode's model editor wrote.
    ///
    /// `url` is one of:
    /// - a versioned model bundle, `Model.xcdatamodeld`: the version named by its
    ///   `.xccurrentversion` file is loaded (or `version`, when given; or the only version, when
    ///   the bundle names none and holds one);
    /// - one model version, `Model.xcdatamodel`: its `contents` file is loaded;
    /// - the `contents` XML file itself.
    ///
    /// Entity classes are found by the names the file gives (`representedClassName`): among
    /// `classes` first (by module-qualified or plain name), then at run time by module-qualified
    /// name, trying `moduleName` for names without a module (Xcode writes `".Employee"` for the
    /// app's own module). An entity whose class is not found uses ``ManagedObject``.
    ///
    /// ```swift
    /// let url = Bundle.module.url(forResource: "Company", withExtension: "xcdatamodeld")!
    /// let model = try ManagedObjectModel(contentsOf: url, classes: [Employee.self, Department.self])
    /// ```
    ///
    /// - Parameters:
    ///   - url: The file URL of the bundle, version or `contents` file.
    ///   - version: The name of the version to load from a versioned bundle, with or without its
    ///     `.xcdatamodel` extension; nil for the current version.
    ///   - moduleName: The module to look up class names without one in.
    ///   - classes: Classes to match to the entities' class names before looking them up.
    /// - Throws: ``ModelError``: ``ModelError/Code/unknownFile`` when there is no such file or it is
    ///   not a model, ``ModelError/Code/unknownModelVersion`` when a bundle's version cannot be
    ///   chosen, ``ModelError/Code/malformedModelFile`` for XML that is not well-formed or not a
    ///   model's, ``ModelError/Code/unsupportedAttributeType`` for an attribute type this library
    ///   does not know, and the model's own checks (see
    /// ``init(entities:fetchRequestTemplates:configurations:)``);
    ///   every one names the file.
    ///
    /// Corresponds to Core Data's `NSManagedObjectModel(contentsOf:)`; differences: reads the model
    /// source Xcode edits, not the compiled `.mom`/`.momd` Xcode builds from it; finds classes by
    /// name in Swift modules rather than through the Objective-C runtime.
    public convenience init(
        contentsOf url: URL, version: String? = nil, moduleName: String? = nil, classes: [ManagedObject.Type] = []
    ) throws {
        let contentsURL = try Self.contentsFile(of: url, version: version)
        let data: Data
        do {
            data = try Data(contentsOf: contentsURL)
        } catch {
            throw ModelError(
                .unknownFile, file: contentsURL, message: "the model file cannot be read", underlyingError: error)
        }
        let parsed = try ModelFileParser.parse(data, from: contentsURL)
        do {
            try self.init(
                entities: parsed.entities, fetchRequestTemplates: parsed.fetchRequestTemplates,
                configurations: parsed.configurations,
                resolver: ClassResolver(moduleName: moduleName, classes: classes))
        } catch var error as ModelError {
            error.fileURL = error.fileURL ?? contentsURL
            throw error
        }
    }

    /// The names of the versions in a versioned model bundle (`.xcdatamodeld`), sorted, each
    /// with its `.xcdatamodel` extension.
    ///
    /// - Throws: ``ModelError/Code/unknownFile`` when `url` is not a directory.
    ///
    /// Corresponds to nothing in Core Data, whose compiled `.momd` lists versions in
    /// `VersionInfo.plist`; differences: reads the source bundle.
    public static func versionNames(inBundleAt url: URL) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelError(.unknownFile, file: url, message: "no model bundle (.xcdatamodeld directory) here")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelError(
                .unknownFile, file: url, message: "the model bundle cannot be read", underlyingError: error)
        }
        return names.filter { $0.hasSuffix(".xcdatamodel") }.sorted()
    }

    /// The name of the current version a versioned model bundle names in its `.xccurrentversion`
    /// file, or nil when it has no such file.
    ///
    /// - Throws: ``ModelError/Code/malformedModelFile`` when the file is not a property list
    ///   naming a version.
    ///
    /// Corresponds to the `NSManagedObjectModel_CurrentVersionName` of a compiled `.momd`;
    /// differences: reads the source bundle's `_XCCurrentVersionName`.
    public static func currentVersionName(inBundleAt url: URL) throws -> String? {
        let file = url.appendingPathComponent(".xccurrentversion")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil)
        } catch {
            throw ModelError(
                .malformedModelFile, file: file, message: "the current-version file is not a property list",
                underlyingError: error)
        }
        guard let dictionary = plist as? [String: Any], let name = dictionary["_XCCurrentVersionName"] as? String,
            !name.isEmpty
        else {
            throw ModelError(
                .malformedModelFile, file: file,
                message: "expected a dictionary with a _XCCurrentVersionName string naming the current version")
        }
        return name
    }

    /// The `contents` file to read for `url`, choosing a bundle's version.
    static func contentsFile(of url: URL, version: String?) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError(.unknownFile, file: url, message: "no model file or bundle here")
        }
        let pathExtension = url.pathExtension.lowercased()
        if pathExtension == "mom" || pathExtension == "momd" {
            throw ModelError(
                .unknownFile, file: url,
                message: "compiled models (.mom, .momd) are not supported; load the .xcdatamodeld or .xcdatamodel "
                    + "source Xcode edits")
        }
        guard isDirectory.boolValue else {
            if let version {
                throw ModelError(
                    .unknownModelVersion, file: url,
                    message: "version '\(version)' asked for, but a model file has no versions; pass an .xcdatamodeld")
            }
            return url
        }
        if pathExtension == "xcdatamodeld" {
            let chosen = try chooseVersion(inBundleAt: url, version: version)
            return try contentsFile(ofVersionAt: url.appendingPathComponent(chosen))
        }
        if let version {
            throw ModelError(
                .unknownModelVersion, file: url,
                message: "version '\(version)' asked for, but only an .xcdatamodeld bundle has versions")
        }
        return try contentsFile(ofVersionAt: url)
    }

    private static func chooseVersion(inBundleAt url: URL, version: String?) throws -> String {
        let versions = try versionNames(inBundleAt: url)
        let listed = versions.isEmpty ? "none" : versions.joined(separator: ", ")
        if let wanted = try version ?? currentVersionName(inBundleAt: url) {
            let name = wanted.hasSuffix(".xcdatamodel") ? wanted : wanted + ".xcdatamodel"
            guard versions.contains(name) else {
                let source = version == nil ? "the bundle's current version" : "the version asked for"
                throw ModelError(
                    .unknownModelVersion, file: url,
                    message: "\(source), '\(wanted)', is not in the bundle (versions: \(listed))")
            }
            return name
        }
        switch versions.count {
        case 0:
            throw ModelError(.unknownFile, file: url, message: "the model bundle holds no .xcdatamodel version")
        case 1:
            return versions[0]
        default:
            throw ModelError(
                .unknownModelVersion, file: url,
                message: "the model bundle holds several versions (\(listed)) but no .xccurrentversion file naming "
                    + "the current one; pass version:")
        }
    }

    private static func contentsFile(ofVersionAt url: URL) throws -> URL {
        let contents = url.appendingPathComponent("contents")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: contents.path, isDirectory: &isDirectory), !isDirectory.boolValue
        else {
            throw ModelError(
                .unknownFile, file: url,
                message: "expected a model version directory (.xcdatamodel) holding a 'contents' XML file; "
                    + "models saved by Xcode 3 and earlier are not supported")
        }
        return contents
    }
}
