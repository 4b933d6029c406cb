import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the `contents` XML file of an Xcode model (`.xcdatamodel`) into ``Entity`` values.
///
/// The XML is what Xcode 4 and later write: a `<model>` root holding `<entity>` elements (with
/// `<attribute>`, `<relationship>`, `<userInfo>`, `<uniquenessConstraints>` and `<fetchIndex>`
/// children), `<fetchRequest>` templates and `<configuration>`s. An attribute marked `indexed`
/// (Xcode's older form) gets a fetch index of its own. Elements that do not affect the model
/// (`<elements>` layout, fetched properties, expression elements of fetch indexes) are skipped. Anything else wrong ends the parse
/// with a ``ModelError`` carrying the file and line.
final class ModelFileParser: NSObject, XMLParserDelegate {
    private let url: URL
    private(set) var entities: [Entity] = []
    private(set) var fetchRequestTemplates: [String: FetchRequestTemplate] = [:]
    private(set) var configurations: [String: [String]] = [:]
    private(set) var error: ModelError?

    /// The names of the open elements, outermost first.
    private var path: [String] = []
    /// How many open elements are being skipped (the subtree of an element that is ignored).
    private var skippedDepth = 0
    private var entity: Entity?
    private var property: Property?
    private var configuration: String?
    private var sawModel = false

    private init(url: URL) {
        self.url = url
    }

    /// Parses model XML read from `url`.
    static func parse(_ data: Data, from url: URL) throws -> ModelFileParser {
        try checkEncoding(of: data, from: url)
        try checkProcessingInstructions(in: data, from: url)
        let delegate = ModelFileParser(url: url)
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        let succeeded = parser.parse()
        if let error = delegate.error { throw error }
        // swift-corelibs-foundation's parser recovers from some errors and then reports success;
        // any error it recorded counts.
        if !succeeded || parser.parserError != nil {
            throw delegate.malformed(parser, parser.parserError)
        }
        if !delegate.sawModel {
            throw ModelError(
                .malformedModelFile, file: url, message: "expected a <model> element, found an empty document")
        }
        return delegate
    }

    /// Throws unless `data` is UTF-8 (or ASCII) text that starts like XML.
    ///
    /// Xcode writes model files in UTF-8. Other encodings are refused before the XML parser
    /// sees them: libxml2 (under FoundationXML on Linux) crashes switching to some of them
    /// (`encoding="UTF-32"`, `encoding="EBCDIC-US"`, `encoding="UTF-7"` in longer files), so
    /// a file that names one, or starts in another (a UTF-16 or UTF-32 byte order mark, a
    /// document not starting with `<`), is malformed here.
    static func checkEncoding(of data: Data, from url: URL) throws {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        guard bytes.isEmpty || bytes.first == UInt8(ascii: "<") else {
            throw ModelError(
                .malformedModelFile, file: url,
                message: "a model file is UTF-8 text starting with '<'; this one starts with byte 0x"
                    + String(bytes[bytes.startIndex], radix: 16))
        }
        // The XML declaration, when there is one: `<?xml version="1.0" encoding="UTF-8"?>`.
        guard bytes.starts(with: Array("<?xml".utf8)) else { return }
        let declaration = bytes.prefix(while: { $0 != UInt8(ascii: ">") }).prefix(512)
        guard let text = String(bytes: declaration, encoding: .ascii) else {
            throw ModelError(.malformedModelFile, file: url, line: 1, message: "the XML declaration is not ASCII text")
        }
        guard let attribute = text.range(of: "encoding") else { return }
        let rest = text[attribute.upperBound...].drop(while: { $0 == " " || $0 == "=" || $0 == "\t" })
        guard let quote = rest.first, quote == "\"" || quote == "'" else {
            throw ModelError(.malformedModelFile, file: url, line: 1, message: "the XML declaration's encoding has no quoted name")
        }
        let name = rest.dropFirst().prefix(while: { $0 != quote })
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased()) else {
            throw ModelError(
                .malformedModelFile, file: url, line: 1,
                message: "the file declares encoding \"\(name)\"; model files are UTF-8")
        }
    }

    /// Throws for a processing instruction with no data (`<?target?>`, `<?target  ?>`).
    ///
    /// libxml2 hands FoundationXML a null pointer for its data, which FoundationXML reads as a C
    /// string: the process crashes (found by the model-file fuzz target). Xcode writes no
    /// processing instruction besides the XML declaration, which has data.
    static func checkProcessingInstructions(in data: Data, from url: URL) throws {
        let bytes = [UInt8](data)
        let open = UInt8(ascii: "<"), question = UInt8(ascii: "?"), close = UInt8(ascii: ">")
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var index = 0, line = 1
        while index + 1 < bytes.count {
            if bytes[index] == 0x0A { line += 1 }
            guard bytes[index] == open, bytes[index + 1] == question else {
                index += 1
                continue
            }
            var end = index + 2
            while end < bytes.count, !isBlank(bytes[end]), bytes[end] != question, bytes[end] != close { end += 1 }
            let target = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
            while end < bytes.count, isBlank(bytes[end]) { end += 1 }
            if end + 1 < bytes.count, bytes[end] == question, bytes[end + 1] == close {
                throw ModelError(
                    .malformedModelFile, file: url, line: line,
                    message: "the processing instruction <?\(target)?> has no data; model files hold none but the XML declaration")
            }
            index += 2
        }
    }

    // MARK: - XMLParserDelegate

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes: [String: String] = [:]
    ) {
        defer { path.append(elementName) }
        if error != nil { return }
        if skippedDepth > 0 {
            skippedDepth += 1
            return
        }
        let parent = path.last
        do {
            switch (parent, elementName) {
            case (nil, "model"):
                sawModel = true
            case (nil, _):
                throw failure(
                    parser, "expected a <model> root element, found <\(elementName)>; is this an Xcode model file?")
            case ("model", "entity"):
                entity = try makeEntity(attributes, parser)
            case ("entity", "attribute"):
                property = try makeAttribute(attributes, parser)
                if try flag("indexed", in: attributes, parser), let name = attributes["name"] {
                    entity?.indexes.append(FetchIndexDescription(
                        name: name + "Index", elements: [FetchIndexElementDescription(propertyName: name)]))
                }
            case ("entity", "relationship"):
                property = try makeRelationship(attributes, parser)
            case ("entity", "userInfo"), ("attribute", "userInfo"), ("relationship", "userInfo"):
                break
            case ("userInfo", "entry"):
                try addUserInfoEntry(attributes, parser)
            case ("entity", "uniquenessConstraints"):
                break
            case ("uniquenessConstraints", "uniquenessConstraint"):
                entity?.uniquenessConstraints.append([])
            case ("uniquenessConstraint", "constraint"):
                let name = try required("value", of: elementName, in: attributes, parser)
                if let last = entity?.uniquenessConstraints.indices.last { entity?.uniquenessConstraints[last].append(name) }
            case ("entity", "fetchIndex"):
                let name = try required("name", of: elementName, in: attributes, parser)
                entity?.indexes.append(FetchIndexDescription(name: name, elements: []))
            case ("fetchIndex", "fetchIndexElement"):
                try addFetchIndexElement(attributes, parser)
            case ("model", "fetchRequest"):
                let name = try required("name", of: elementName, in: attributes, parser)
                fetchRequestTemplates[name] = try makeFetchRequestTemplate(named: name, attributes, parser)
            case ("model", "configuration"):
                let name = try required("name", of: elementName, in: attributes, parser)
                configuration = name
                if configurations[name] == nil { configurations[name] = [] }
            case ("configuration", "memberEntity"):
                let name = try required("name", of: elementName, in: attributes, parser)
                if let configuration { configurations[configuration, default: []].append(name) }
            default:
                // Layout (`elements`), fetched properties, indexes and anything newer: not
                // part of what this library models.
                skippedDepth = 1
            }
        } catch let error as ModelError {
            self.error = error
            parser.abortParsing()
        } catch {
            self.error = ModelError(.malformedModelFile, file: url, line: parser.lineNumber, message: "\(error)")
            parser.abortParsing()
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if error == nil {
            error = malformed(parser, parseError)
            parser.abortParsing()
        }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        _ = path.popLast()
        guard error == nil else { return }
        if skippedDepth > 0 {
            skippedDepth -= 1
            return
        }
        switch (path.last, elementName) {
        case ("model", "entity"):
            if let entity { entities.append(entity) }
            entity = nil
        case ("entity", "attribute"), ("entity", "relationship"):
            if let property { entity?.properties.append(property) }
            property = nil
        case ("entity", "fetchIndex"):
            // An index of expression elements only: nothing this library can index.
            if entity?.indexes.last?.elements.isEmpty == true { entity?.indexes.removeLast() }
        case ("model", "configuration"):
            configuration = nil
        default:
            break
        }
    }

    // MARK: - Elements

    private func makeEntity(_ attributes: [String: String], _ parser: XMLParser) throws -> Entity {
        let name = try required("name", of: "entity", in: attributes, parser)
        return Entity(
            name, className: attributes["representedClassName"], parent: attributes["parentEntity"],
            abstract: try flag("isAbstract", in: attributes, parser),
            renamingIdentifier: attributes["elementID"] ?? attributes["renamingIdentifier"],
            versionHashModifier: attributes["versionHashModifier"], properties: [])
    }

    private func makeAttribute(_ attributes: [String: String], _ parser: XMLParser) throws -> Property {
        let name = try required("name", of: "attribute", in: attributes, parser)
        let typeName = try required("attributeType", of: "attribute", in: attributes, parser)
        guard let type = AttributeType(xcodeName: typeName) else {
            let known = AttributeType.allKnown.compactMap(\.xcodeName).map { "\"\($0)\"" }.joined(separator: ", ")
            throw ModelError(
                .unsupportedAttributeType, entity: entity?.name, property: name, file: url, line: parser.lineNumber,
                message: "attribute type \"\(typeName)\" is not one of \(known)")
        }
        func value(_ key: String) throws -> (any Sendable)? {
            guard let text = attributes[key] else { return nil }
            guard let value = type.parse(text) else {
                throw failure(parser, "\(key) \"\(text)\" of attribute '\(name)' is not a value of type \(typeName)")
            }
            return value
        }
        func length(_ key: String) throws -> Int? {
            guard let text = attributes[key] else { return nil }
            guard let length = Int(text) else {
                throw failure(parser, "\(key) \"\(text)\" of attribute '\(name)' is not a length")
            }
            return length
        }
        var defaultValue: (any Sendable)?
        var minimum: (any Sendable)?
        var maximum: (any Sendable)?
        var minimumLength: Int?
        var maximumLength: Int?
        switch type {
        case .string, .binaryData:
            // Xcode writes a string's length bounds as min/maxValueString.
            minimumLength = try length("minValueString")
            maximumLength = try length("maxValueString")
            if type == .string { defaultValue = attributes["defaultValueString"] }
        case .date:
            defaultValue = try value("defaultDateTimeInterval")
            minimum = try value("minDateTimeInterval")
            maximum = try value("maxDateTimeInterval")
        case .transformable, .undefined, .objectID:
            break
        default:
            defaultValue = try value("defaultValueString")
            minimum = try value("minValueString")
            maximum = try value("maxValueString")
        }
        return Property(
            name, type, optional: try flag("optional", in: attributes, parser),
            transient: try flag("transient", in: attributes, parser), defaultValue: defaultValue,
            minimum: minimum, maximum: maximum, minimumLength: minimumLength, maximumLength: maximumLength,
            pattern: attributes["regularExpressionString"], transformer: attributes["valueTransformerName"],
            preservesValueInHistoryOnDeletion: try flag("preserveAfterDeletion", in: attributes, parser),
            renamingIdentifier: attributes["elementID"] ?? attributes["renamingIdentifier"],
            versionHashModifier: attributes["versionHashModifier"])
    }

    /// A `<fetchIndexElement>` naming a property (`type` `Binary` or `RTree`, `order`
    /// `ascending` or `descending`); an expression element is skipped.
    private func addFetchIndexElement(_ attributes: [String: String], _ parser: XMLParser) throws {
        guard let name = attributes["property"] else { return }
        var element = FetchIndexElementDescription(propertyName: name)
        switch attributes["type"] {
        case nil, "Binary": element.collationType = .binary
        case "RTree": element.collationType = .rTree
        case let other?: throw failure(parser, "type \"\(other)\" of a fetch index element is not \"Binary\" or \"RTree\"")
        }
        switch attributes["order"] {
        case nil, "ascending": element.isAscending = true
        case "descending": element.isAscending = false
        case let other?: throw failure(parser, "order \"\(other)\" of a fetch index element is not \"ascending\" or \"descending\"")
        }
        guard let last = entity?.indexes.indices.last else { return }
        entity?.indexes[last].elements.append(element)
    }

    private func makeRelationship(_ attributes: [String: String], _ parser: XMLParser) throws -> Property {
        let name = try required("name", of: "relationship", in: attributes, parser)
        let destination = try required("destinationEntity", of: "relationship", in: attributes, parser)
        var deleteRule = DeleteRule.nullify
        if let ruleName = attributes["deletionRule"] {
            guard let rule = DeleteRule(xcodeName: ruleName) else {
                throw failure(
                    parser, "deletionRule \"\(ruleName)\" of relationship '\(name)' is not one of "
                        + "\"Nullify\", \"Cascade\", \"Deny\", \"No Action\"")
            }
            deleteRule = rule
        }
        func count(_ key: String) throws -> Int? {
            try self.count(key, of: "relationship '\(name)'", in: attributes, parser)
        }
        let toMany = try flag("toMany", in: attributes, parser)
        return Property(
            name, to: destination, inverse: attributes["inverseName"], toMany: toMany,
            ordered: try flag("ordered", in: attributes, parser), deleteRule: deleteRule,
            minCount: try count("minCount") ?? 0, maxCount: try count("maxCount"),
            optional: try flag("optional", in: attributes, parser),
            transient: try flag("transient", in: attributes, parser),
            renamingIdentifier: attributes["elementID"] ?? attributes["renamingIdentifier"],
            versionHashModifier: attributes["versionHashModifier"])
    }

    /// A `<fetchRequest>` with every setting Xcode writes; one the element leaves out keeps
    /// `NSFetchRequest`'s default. Xcode spells some names in the singular
    /// (`includeSubentities`, `returnObjectsAsFaults`); both spellings are read.
    private func makeFetchRequestTemplate(
        named name: String, _ attributes: [String: String], _ parser: XMLParser
    ) throws -> FetchRequestTemplate {
        let entityName = try required("entity", of: "fetchRequest", in: attributes, parser)
        func number(_ key: String) throws -> Int {
            try count(key, of: "fetch request '\(name)'", in: attributes, parser) ?? 0
        }
        func setting(_ keys: String..., default defaultValue: Bool) throws -> Bool {
            guard let key = keys.first(where: { attributes[$0] != nil }) else { return defaultValue }
            return try flag(key, in: attributes, parser)
        }
        return FetchRequestTemplate(
            entityName: entityName, predicateFormat: attributes["predicateString"],
            fetchLimit: try number("fetchLimit"), fetchOffset: try number("fetchOffset"),
            fetchBatchSize: try number("fetchBatchSize"),
            includesSubentities: try setting("includeSubentities", "includesSubentities", default: true),
            returnsObjectsAsFaults: try setting("returnObjectsAsFaults", "returnsObjectsAsFaults", default: true),
            includesPendingChanges: try setting("includesPendingChanges", "includePendingChanges", default: true),
            includesPropertyValues: try setting("includePropertyValues", "includesPropertyValues", default: true),
            returnsDistinctResults: try setting("returnDistinctResults", "returnsDistinctResults", default: false))
    }

    private func addUserInfoEntry(_ attributes: [String: String], _ parser: XMLParser) throws {
        let key = try required("key", of: "entry", in: attributes, parser)
        let value = attributes["value"] ?? ""
        switch path.dropLast().last {
        case "attribute", "relationship": property?.common.userInfo[key] = value
        case "entity": entity?.userInfo[key] = value
        default: break
        }
    }

    // MARK: - Helpers

    private func required(
        _ key: String, of element: String, in attributes: [String: String], _ parser: XMLParser
    ) throws -> String {
        guard let value = attributes[key], !value.isEmpty else {
            throw failure(parser, "<\(element)> has no \(key)=\"…\"")
        }
        return value
    }

    /// The count under `key`, nil when absent; anything but a whole number not below 0 throws,
    /// naming `owner` ("relationship 'employees'").
    private func count(
        _ key: String, of owner: String, in attributes: [String: String], _ parser: XMLParser
    ) throws -> Int? {
        guard let text = attributes[key] else { return nil }
        guard let count = Int(text), count >= 0 else {
            throw failure(parser, "\(key) \"\(text)\" of \(owner) is not a count")
        }
        return count
    }

    private func flag(_ key: String, in attributes: [String: String], _ parser: XMLParser) throws -> Bool {
        switch attributes[key] {
        case nil, "NO": return false
        case "YES": return true
        case let other?: throw failure(parser, "\(key)=\"\(other)\" is neither YES nor NO")
        }
    }

    /// The error for XML that is not well-formed, with the parser's error code (libxml2's).
    private func malformed(_ parser: XMLParser, _ parseError: (any Error)?) -> ModelError {
        let detail = parseError.map { " (XML parser error \(($0 as NSError).code))" } ?? ""
        return ModelError(
            .malformedModelFile, file: url, line: parser.lineNumber,
            message: "the file is not well-formed XML\(detail)", underlyingError: parseError)
    }

    private func failure(_ parser: XMLParser, _ message: String) -> ModelError {
        ModelError(
            .malformedModelFile, entity: entity?.name, property: property?.name, file: url, line: parser.lineNumber,
            message: message)
    }
}
