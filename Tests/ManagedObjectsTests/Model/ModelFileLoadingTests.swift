import Foundation
import Testing

@testable import ManagedObjects

/// Loading model files written for these tests (Fixtures/Models) in Xcode's format.
@Suite struct ModelFileLoadingTests {
    private func company(
        moduleName: String? = nil, classes: [ManagedObject.Type] = []
    ) throws -> ManagedObjectModel {
        try ManagedObjectModel(
            contentsOf: ModelFixtures.url("Company", "xcdatamodel"), moduleName: moduleName, classes: classes)
    }

    @Test func loadsEntitiesAndInheritanceFromAnXcdatamodel() throws {
        let model = try company()
        #expect(model.entities.map(\.name) == ["Person", "Employee", "Department"])
        let person = try #require(model.entity(named: "Person"))
        let employee = try #require(model.entity(named: "Employee"))
        #expect(person.isAbstract)
        #expect(employee.superentity === person)
        #expect(person.subentities.map(\.name) == ["Employee"])
        #expect(employee.isKindOf(entity: person))
        #expect(employee.properties.prefix(2).map(\.name) == ["birthDate", "name"])
        #expect(employee.ownProperties.count == 16)
        // The fetched property and the uniqueness constraints are skipped.
        #expect(employee.propertiesByName["colleagues"] == nil)
        #expect(model.entity(named: "Department")?.properties.map(\.name) == ["budget", "name", "employees"])
    }

    @Test func mapsEveryXcodeAttributeType() throws {
        let employee = try #require(try company().entity(named: "Employee"))
        let expected: [String: AttributeType] = [
            "badge": .uuid, "bonus": .decimal, "employeeID": .integer64, "homepage": .uri, "isManager": .boolean,
            "level": .integer16, "photo": .binaryData, "preferences": .transformable, "rating": .float,
            "salary": .double, "scratch": .string, "startDate": .date, "vacationDays": .integer32,
            "name": .string, "birthDate": .date,
        ]
        for (name, type) in expected {
            #expect(employee.attributesByName[name]?.attributeType == type, "\(name)")
        }
        #expect(employee.attributesByName.count == expected.count)
    }

    @Test func readsFlagsDefaultsAndConstraints() throws {
        let model = try company()
        let person = try #require(model.entity(named: "Person"))
        let employee = try #require(model.entity(named: "Employee"))
        func attribute(_ name: String) throws -> AttributeDescription {
            try #require(employee.attributesByName[name])
        }

        let name = try #require(person.attributesByName["name"])
        #expect(!name.isOptional)
        #expect(name.minimumLength == 1 && name.maximumLength == 80)
        #expect(name.regularExpression == "^[A-Z].*")
        #expect(name.renamingIdentifier == "fullName")
        #expect(name.userInfo == ["columnName": "NAME"])
        #expect(try attribute("birthDate").isOptional)
        let earliestBirth = Date(timeIntervalSinceReferenceDate: -3_124_137_600)
        #expect(try attribute("birthDate").minimumValue as? Date == earliestBirth)
        #expect(try attribute("scratch").isTransient)
        #expect(try attribute("bonus").defaultValue as? Decimal == Decimal(string: "0.5"))
        #expect(try attribute("employeeID").defaultValue as? Int64 == 0)
        #expect(try attribute("isManager").defaultValue as? Bool == false)
        #expect(try attribute("level").defaultValue as? Int16 == 1)
        #expect(try attribute("level").minimumValue as? Int16 == 1)
        #expect(try attribute("level").maximumValue as? Int16 == 9)
        #expect(try attribute("rating").defaultValue as? Float == 2.5)
        #expect(try attribute("salary").defaultValue as? Double == 0)
        #expect(try attribute("salary").maximumValue as? Double == 1_000_000)
        #expect(try attribute("startDate").defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(try attribute("vacationDays").defaultValue as? Int32 == 25)
        #expect(try attribute("preferences").valueTransformerName == "PreferencesTransformer")
        #expect(try attribute("photo").defaultValue == nil)
        #expect(model.entity(named: "Department")?.attributesByName["budget"]?.defaultValue as? Decimal
            == Decimal(string: "1000.25"))
        #expect(person.userInfo == ["table": "people"])
    }

    @Test func readsRelationships() throws {
        let model = try company()
        let employee = try #require(model.entity(named: "Employee"))
        let department = try #require(model.entity(named: "Department"))
        let employees = try #require(department.relationshipsByName["employees"])
        #expect(employees.isToMany && employees.isOrdered)
        #expect(employees.deleteRule == .cascade)
        #expect(employees.minCount == 1 && employees.maxCount == 50)
        #expect(!employees.isOptional)
        #expect(employees.destinationEntity === employee)
        #expect(employees.inverseRelationship === employee.relationshipsByName["department"])
        #expect(employees.userInfo == ["note": "ordered by seniority"])

        let manager = try #require(employee.relationshipsByName["manager"])
        let reports = try #require(employee.relationshipsByName["reports"])
        #expect(!manager.isToMany && manager.maxCount == 1)
        #expect(manager.deleteRule == .noAction)
        #expect(reports.deleteRule == .deny)
        #expect(reports.isToMany && !reports.isOrdered && reports.maxCount == 0)
        #expect(manager.inverseRelationship === reports && reports.inverseRelationship === manager)
        #expect(employee.relationshipsByName["department"]?.deleteRule == .nullify)
    }

    @Test func fetchRequestTemplatesKeepEverySettingTheFileGives() throws {
        let model = try company()
        let wellPaid = try #require(model.fetchRequestTemplatesByName["wellPaid"])
        #expect(wellPaid == FetchRequestTemplate(
            entityName: "Employee", predicateFormat: "salary > 100000", fetchLimit: 10, fetchBatchSize: 20,
            includesSubentities: false, returnsObjectsAsFaults: false, includesPendingChanges: false,
            includesPropertyValues: false, returnsDistinctResults: true))
        // Settings a file leaves out keep NSFetchRequest's defaults.
        #expect(model.fetchRequestTemplatesByName["allDepartments"] == FetchRequestTemplate(entityName: "Department"))
        let request = try wellPaid.fetchRequest(as: ManagedObject.self)
        #expect(request.entityName == "Employee" && request.predicate?.predicateFormat == "salary > 100000")
        #expect(request.fetchLimit == 10 && request.fetchBatchSize == 20)
        #expect(!request.includesSubentities && !request.returnsObjectsAsFaults && !request.includesPendingChanges)
        #expect(!request.includesPropertyValues)
    }

    @Test func templateWhosePredicateDoesNotParseThrowsWhenMadeARequest() throws {
        let template = FetchRequestTemplate(entityName: "Employee", predicateFormat: "salary >")
        #expect(throws: KeyValuePredicateError.self) { try template.fetchRequest(as: ManagedObject.self) }
    }

    @Test func readsFetchRequestTemplatesAndConfigurations() throws {
        let model = try company()
        #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["allDepartments", "wellPaid"])
        #expect(model.fetchRequestTemplatesByName["wellPaid"]?.entityName == "Employee")
        #expect(model.fetchRequestTemplatesByName["wellPaid"]?.predicateFormat == "salary > 100000")
        #expect(model.fetchRequestTemplatesByName["allDepartments"]?.predicateFormat == nil)
        #expect(model.configurations == ["People"])
        #expect(model.entities(forConfigurationName: "People")?.map(\.name) == ["Person", "Employee"])
    }

    @Test func findsEntityClassesByTheNamesTheFileGives() throws {
        // "ManagedObjectsTests.ModelTestDepartment" is module-qualified and found at run time;
        // ".ModelTestEmployee" is in "the current module", which only the caller can name.
        let plain = try company()
        #expect(plain.entity(named: "Department")?.managedObjectClass == ModelTestDepartment.self)
        #expect(plain.entity(named: "Employee")?.managedObjectClass == ManagedObject.self)
        #expect(plain.entity(named: "Employee")?.managedObjectClassName == ".ModelTestEmployee")

        let inModule = try company(moduleName: "ManagedObjectsTests")
        #expect(inModule.entity(named: "Employee")?.managedObjectClass == ModelTestEmployee.self)
        #expect(inModule.entity(named: "Person")?.managedObjectClass == ModelTestPerson.self)

        let explicit = try company(classes: [ModelTestEmployee.self])
        #expect(explicit.entity(named: "Employee")?.managedObjectClass == ModelTestEmployee.self)
        #expect(explicit.entity(named: "Person")?.managedObjectClass == ManagedObject.self)
    }

    @Test func contentsFileLoadsLikeItsDirectory() throws {
        let directory = try ModelFixtures.url("Company", "xcdatamodel")
        let fromFile = try ManagedObjectModel(contentsOf: directory.appendingPathComponent("contents"))
        let fromDirectory = try ManagedObjectModel(contentsOf: directory)
        #expect(fromFile.versionHash == fromDirectory.versionHash)
        #expect(fromFile.entities.map(\.name) == fromDirectory.entities.map(\.name))
    }

    @Test func versionedBundleLoadsItsCurrentVersion() throws {
        let bundle = try ModelFixtures.url("Zoo", "xcdatamodeld")
        #expect(try ManagedObjectModel.versionNames(inBundleAt: bundle) == ["Zoo 2.xcdatamodel", "Zoo.xcdatamodel"])
        #expect(try ManagedObjectModel.currentVersionName(inBundleAt: bundle) == "Zoo 2.xcdatamodel")

        let current = try ManagedObjectModel(contentsOf: bundle)
        #expect(current.entities.map(\.name) == ["Animal", "Keeper"])
        let animal = try #require(current.entity(named: "Animal"))
        #expect(animal.attributesByName["commonName"]?.renamingIdentifier == "name")
        #expect(animal.relationshipsByName["keeper"]?.inverseRelationship?.name == "animals")
    }

    @Test(arguments: ["Zoo", "Zoo.xcdatamodel"])
    func versionedBundleLoadsTheVersionAskedFor(version: String) throws {
        let bundle = try ModelFixtures.url("Zoo", "xcdatamodeld")
        let first = try ManagedObjectModel(contentsOf: bundle, version: version)
        #expect(first.entities.map(\.name) == ["Animal"])
        #expect(first.entity(named: "Animal")?.attributesByName["legs"]?.defaultValue as? Int16 == 4)
        let second = try ManagedObjectModel(contentsOf: bundle, version: "Zoo 2")
        #expect(first.versionHash != second.versionHash)
        // `legs` did not change between the versions, so neither did its hash.
        #expect(
            first.entity(named: "Animal")?.propertiesByName["legs"]?.versionHash
                == second.entity(named: "Animal")?.propertiesByName["legs"]?.versionHash)
    }

    @Test func bundleWithOneVersionAndNoCurrentVersionFileLoadsThatVersion() throws {
        let bundle = try ModelFixtures.url("Single", "xcdatamodeld")
        #expect(try ManagedObjectModel.currentVersionName(inBundleAt: bundle) == nil)
        let model = try ManagedObjectModel(contentsOf: bundle)
        #expect(model.entities.map(\.name) == ["Note"])
    }

    @Test func fileModelHasTheHashOfTheSameSchemaWrittenInCode() throws {
        let fromFile = try ManagedObjectModel(contentsOf: ModelFixtures.url("Zoo", "xcdatamodeld"), version: "Zoo")
        let inCode = try ManagedObjectModel {
            Entity("Animal", className: "Whatever") {
                Property("name", .string, optional: false)
                Property("legs", .integer16, optional: false, defaultValue: 2)
            }
        }
        #expect(fromFile.versionHash == inCode.versionHash)
        #expect(fromFile.entityVersionHashesByName == inCode.entityVersionHashesByName)
    }
}

/// Every way loading a model file can fail, matched by code, with the file named.
@Suite struct ModelFileErrorTests {
    private func loadError(
        _ url: URL, version: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) -> ModelError? {
        #expect(throws: ModelError.self, sourceLocation: sourceLocation) {
            _ = try ManagedObjectModel(contentsOf: url, version: version)
        }
    }

    @Test func missingFileIsUnknown() {
        let url = URL(fileURLWithPath: "/nonexistent/Model.xcdatamodeld")
        let error = loadError(url)
        #expect(error?.code == .unknownFile)
        #expect(error?.fileURL == url)
        #expect(error?.description.contains("/nonexistent/Model.xcdatamodeld") == true)
    }

    @Test func directoryWithoutContentsIsUnknown() throws {
        let error = loadError(try ModelFixtures.broken("Empty"))
        #expect(error?.code == .unknownFile)
        #expect(error?.message.contains("'contents'") == true)
    }

    @Test func compiledModelsAreUnknownFiles() throws {
        let directory = try ModelTestDirectory()
        let momd = directory.url.appendingPathComponent("Model.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        let error = loadError(momd)
        #expect(error?.code == .unknownFile)
        #expect(error?.message.contains("compiled") == true)
    }

    @Test func malformedXMLIsReportedWithItsLine() throws {
        let error = loadError(try ModelFixtures.broken("Malformed"))
        #expect(error?.code == .malformedModelFile)
        #expect(error?.fileURL?.lastPathComponent == "contents")
        #expect(error?.line != nil)
        #expect(error?.underlyingError != nil)
    }

    @Test func xmlThatIsNotAModelIsMalformed() throws {
        let error = loadError(try ModelFixtures.broken("NotAModel"))
        #expect(error?.code == .malformedModelFile)
        #expect(error?.message.contains("<model>") == true)
        #expect(error?.message.contains("<plist>") == true)
    }

    @Test func fetchRequestTemplateWithABadCountIsMalformedAndNamed() throws {
        let error = loadError(try ModelFixtures.broken("BadFetchRequest"))
        #expect(error?.code == .malformedModelFile)
        #expect(error?.line == 6)
        #expect(error?.message.contains("fetchLimit \"many\"") == true)
    }

    @Test func unknownAttributeTypeIsUnsupportedAndNamed() throws {
        let error = loadError(try ModelFixtures.broken("UnknownType"))
        #expect(error?.code == .unsupportedAttributeType)
        #expect(error?.entityName == "Swatch" && error?.propertyName == "color")
        #expect(error?.line == 5)
        #expect(error?.message.contains("\"Color\"") == true)
    }

    @Test func inconsistentModelInAFileNamesTheFile() throws {
        let error = loadError(try ModelFixtures.broken("UnknownDestination"))
        #expect(error?.code == .unknownDestination)
        #expect(error?.entityName == "Book" && error?.propertyName == "author")
        #expect(error?.fileURL?.lastPathComponent == "contents")
    }

    @Test func bundleWithSeveralVersionsAndNoCurrentOneIsAmbiguous() throws {
        let bundle = try ModelFixtures.broken("NoCurrentVersion", "xcdatamodeld")
        let error = loadError(bundle)
        #expect(error?.code == .unknownModelVersion)
        #expect(error?.message.contains("A.xcdatamodel, B.xcdatamodel") == true)
        // Naming the version resolves it.
        let model = try ManagedObjectModel(contentsOf: bundle, version: "B")
        #expect(model.entities.map(\.name) == ["ThingB"])
    }

    @Test func currentVersionThatIsNotInTheBundleIsUnknown() throws {
        let error = loadError(try ModelFixtures.broken("WrongCurrentVersion", "xcdatamodeld"))
        #expect(error?.code == .unknownModelVersion)
        #expect(error?.message.contains("'C.xcdatamodel'") == true)
    }

    @Test func versionAskedForMustExistAndNeedsABundle() throws {
        let missing = loadError(try ModelFixtures.url("Zoo", "xcdatamodeld"), version: "Zoo 3")
        #expect(missing?.code == .unknownModelVersion)
        let notBundle = loadError(try ModelFixtures.url("Company", "xcdatamodel"), version: "Company")
        #expect(notBundle?.code == .unknownModelVersion)
    }

    @Test func currentVersionFileThatIsNotAPropertyListIsMalformed() throws {
        let directory = try ModelTestDirectory()
        try directory.write("<model/>", to: "M.xcdatamodeld/M.xcdatamodel/contents")
        try directory.write("not a plist {", to: "M.xcdatamodeld/.xccurrentversion")
        let error = loadError(directory.url.appendingPathComponent("M.xcdatamodeld"))
        #expect(error?.code == .malformedModelFile)
        #expect(error?.fileURL?.lastPathComponent == ".xccurrentversion")
    }

    @Test func emptyBundleIsUnknown() throws {
        let directory = try ModelTestDirectory()
        let bundle = directory.url.appendingPathComponent("M.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        #expect(loadError(bundle)?.code == .unknownFile)
    }

    /// Small model files that are well-formed XML but not a model Xcode would write.
    @Test(arguments: [
        ("empty file", ""),
        ("entity without a name", #"<model><entity representedClassName="X"/></model>"#),
        ("attribute without a type", #"<model><entity name="A"><attribute name="x"/></entity></model>"#),
        ("flag that is not YES or NO", #"<model><entity name="A"><attribute name="x" attributeType="String" optional="maybe"/></entity></model>"#),
        ("default that is not a number", #"<model><entity name="A"><attribute name="x" attributeType="Integer 32" defaultValueString="ten"/></entity></model>"#),
        ("default out of range", #"<model><entity name="A"><attribute name="x" attributeType="Integer 16" defaultValueString="40000"/></entity></model>"#),
        ("length that is not a number", #"<model><entity name="A"><attribute name="x" attributeType="String" maxValueString="long"/></entity></model>"#),
        ("relationship without destination", #"<model><entity name="A"><relationship name="r" maxCount="1"/></entity></model>"#),
        ("unknown deletion rule", #"<model><entity name="A"><relationship name="r" destinationEntity="A" deletionRule="Explode"/></entity></model>"#),
        ("count that is not a number", #"<model><entity name="A"><relationship name="r" destinationEntity="A" toMany="YES" maxCount="lots"/></entity></model>"#),
        ("template without an entity", #"<model><fetchRequest name="all"/></model>"#),
        ("template flag that is not YES or NO", #"<model><entity name="A"/><fetchRequest name="all" entity="A" includeSubentities="maybe"/></model>"#),
        ("template count below zero", #"<model><entity name="A"/><fetchRequest name="all" entity="A" fetchBatchSize="-1"/></model>"#),
        ("user info entry without a key", #"<model><entity name="A"><userInfo><entry value="v"/></userInfo></entity></model>"#),
        ("not XML at all", "{ \"entities\": [] }"),
    ])
    func malformedModelFilesAreReported(label: String, xml: String) throws {
        let directory = try ModelTestDirectory()
        let file = try directory.write(xml, to: "Model.xcdatamodel/contents")
        let error = loadError(file.deletingLastPathComponent())
        #expect(error?.code == .malformedModelFile, "\(label)")
        #expect(error?.fileURL == file, "\(label)")
    }

    /// libxml2 under FoundationXML crashes switching to some encodings a declaration names
    /// (UTF-32 and EBCDIC here, found by the model-file fuzz target): model files are UTF-8, and
    /// a file in, or naming, another encoding is refused before it is parsed.
    @Test(arguments: [
        ("UTF-32 declared", Data(#"<?xml version="1.0" encoding="UTF-32"?><model><entity name="A"/></model>"#.utf8)),
        ("EBCDIC declared", Data(#"<?xml version="1.0" encoding='EBCDIC-US'?><model><entity name="A"/></model>"#.utf8)),
        ("UTF-7 declared", Data(#"<?xml version="1.0" encoding="UTF-7" standalone="yes"?><model/>"#.utf8)),
        ("Latin-1 declared", Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><model/>"#.utf8)),
        ("encoding without a quoted name", Data(#"<?xml version="1.0" encoding=UTF-8?><model/>"#.utf8)),
        ("UTF-16 with a byte order mark", Data([0xFE, 0xFF, 0x00, 0x3C, 0x00, 0x6D])),
        ("UTF-32 without a mark", Data([0x00, 0x00, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x3F])),
        ("EBCDIC signature", Data([0x4C, 0x6F, 0xA7, 0x94])),
    ])
    func modelFilesInOtherEncodingsAreMalformed(label: String, data: Data) throws {
        let directory = try ModelTestDirectory()
        let file = directory.url.appendingPathComponent("contents")
        try data.write(to: file)
        let error = loadError(file)
        #expect(error?.code == .malformedModelFile, "\(label)")
        #expect(error?.fileURL == file, "\(label)")
    }

    /// libxml2 hands FoundationXML a null pointer for the data of a processing instruction that
    /// has none, and the process crashed reading it (found by the model-file fuzz target): such
    /// a file is refused before it is parsed, with the instruction's line.
    @Test(arguments: [
        ("the fuzzer's input", Data([
            0x3C, 0x3F, 0x78, 0x74, 0x65, 0x74, 0x65, 0x3F, 0x3E, 0x6E, 0x6F, 0x20, 0x6E, 0x73, 0x73, 0x68,
            0x0A, 0x22, 0x3E, 0x3F, 0x3C, 0x6D, 0x6F, 0x22, 0x20, 0x74, 0x79, 0x70, 0x65, 0x22, 0x2F, 0x3E, 0x0A, 0x20,
        ]), 1),
        ("after the declaration", Data("<?xml version=\"1.0\"?>\n<?target?><model/>".utf8), 2),
        ("blanks before the end", Data("<model>\n\n<?target \t ?></model>".utf8), 3),
        ("no target", Data("<model><??></model>".utf8), 1),
    ])
    func processingInstructionsWithoutDataAreMalformed(label: String, data: Data, line: Int) throws {
        let directory = try ModelTestDirectory()
        let file = directory.url.appendingPathComponent("contents")
        try data.write(to: file)
        let error = loadError(file)
        #expect(error?.code == .malformedModelFile, "\(label)")
        #expect(error?.fileURL == file && error?.line == line, "\(label): \(String(describing: error))")
    }

    @Test func processingInstructionsWithDataAreParsedPast() throws {
        let directory = try ModelTestDirectory()
        let file = try directory.write(
            #"<?xml version="1.0" encoding="UTF-8"?><?editor hint="x"?><model><entity name="A"/></model>"#, to: "contents")
        #expect(try ManagedObjectModel(contentsOf: file).entity(named: "A") != nil)
    }

    @Test(arguments: ["UTF-8", "utf-8", "US-ASCII"])
    func modelFilesDeclaringUTF8OrASCIILoad(encoding: String) throws {
        let directory = try ModelTestDirectory()
        // With a UTF-8 byte order mark, which the check skips.
        let text = "\u{FEFF}<?xml version=\"1.0\" encoding='\(encoding)' standalone=\"yes\"?>\n"
            + #"<model><entity name="A"><attribute name="x" optional="YES" attributeType="String"/></entity></model>"#
        let file = try directory.write(text, to: "contents")
        let model = try ManagedObjectModel(contentsOf: file)
        #expect(model.entity(named: "A")?.attributesByName["x"] != nil)
    }

    @Test func unknownEntitiesInTemplatesAndConfigurationsAreReported() throws {
        let directory = try ModelTestDirectory()
        let file = try directory.write(
            #"<model><entity name="A"/><configuration name="C"><memberEntity name="B"/></configuration></model>"#,
            to: "contents")
        let error = loadError(file)
        #expect(error?.code == .unknownEntity && error?.entityName == "B")
        #expect(error?.fileURL == file)
    }
}
