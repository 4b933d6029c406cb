import Foundation
import Testing
import ModelObjects
import SampleModels

/// To-many changes: precise insertions, removals and replacements with indexes for ordered
/// relationships, and set mutations with exactly the objects added or removed.
@Suite struct ToManyTests {
    private let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    private let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
    private let alan = Employee(firstName: "Alan", lastName: "Turing", employeeID: 3, salary: 300)
    private let kath = Employee(firstName: "Katherine", lastName: "Johnson", employeeID: 4, salary: 400)

    private func makeDepartment(_ employees: [Employee]) -> Department {
        let department = Department(name: "Engineering")
        department.employees = employees
        return department
    }

    private func names(_ employees: [Employee]) -> [String] {
        employees.map(\.firstName)
    }

    // MARK: Ordered: mutable array proxy

    @Test func proxyInsertIsOneInsertionWithItsIndex() throws {
        let department = makeDepartment([ada, grace])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").insert(alan, at: 1)

        #expect(observer.entries == ["employees insertion old=nil new=[Alan] indexes=[1] prior=false"])
        #expect(names(department.employees) == ["Ada", "Alan", "Grace"])
    }

    @Test func proxyInsertAtSeveralIndexesIsOneInsertion() throws {
        let department = makeDepartment([ada, grace])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").insert([alan, kath], at: IndexSet([0, 2]))

        #expect(observer.entries == ["employees insertion old=nil new=[Alan, Katherine] indexes=[0, 2] prior=false"])
        #expect(names(department.employees) == ["Alan", "Ada", "Katherine", "Grace"])
    }

    @Test func proxyAppendIsAnInsertionAtTheOldCount() throws {
        let department = makeDepartment([ada, grace])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").append(alan)

        #expect(observer.entries == ["employees insertion old=nil new=[Alan] indexes=[2] prior=false"])
    }

    @Test func proxyAppendContentsOfIsOneInsertionOfAll() throws {
        let department = makeDepartment([ada, grace])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").append(contentsOf: [alan, kath])

        #expect(observer.entries == ["employees insertion old=nil new=[Alan, Katherine] indexes=[2, 3] prior=false"])
        #expect(names(department.employees) == ["Ada", "Grace", "Alan", "Katherine"])
    }

    @Test func proxyRemoveIsOneRemovalWithTheRemovedObject() throws {
        let department = makeDepartment([ada, grace, alan])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").remove(at: 1)

        #expect(observer.entries == ["employees removal old=[Grace] new=nil indexes=[1] prior=false"])
        #expect(names(department.employees) == ["Ada", "Alan"])
    }

    @Test func proxyRemoveAtSeveralIndexesIsOneRemoval() throws {
        let department = makeDepartment([ada, grace, alan, kath])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").remove(at: IndexSet([0, 2]))

        #expect(observer.entries == ["employees removal old=[Ada, Alan] new=nil indexes=[0, 2] prior=false"])
        #expect(names(department.employees) == ["Grace", "Katherine"])
    }

    @Test func proxyRemoveLastAndRemoveAll() throws {
        let department = makeDepartment([ada, grace, alan])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])
        let proxy = try department.mutableArrayValue(forKey: "employees")

        try proxy.removeLast()
        try proxy.removeAll()

        #expect(observer.entries == [
            "employees removal old=[Alan] new=nil indexes=[2] prior=false",
            "employees removal old=[Ada, Grace] new=nil indexes=[0, 1] prior=false",
        ])
    }

    @Test func proxyReplaceIsOneReplacementWithOldAndNewObjects() throws {
        let department = makeDepartment([ada, grace])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").replace(at: 1, with: alan)

        #expect(observer.entries == ["employees replacement old=[Grace] new=[Alan] indexes=[1] prior=false"])
        #expect(names(department.employees) == ["Ada", "Alan"])
    }

    @Test func proxyReplaceAtSeveralIndexesIsOneReplacement() throws {
        let department = makeDepartment([ada, grace, alan])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").replace(at: IndexSet([0, 2]), with: [kath, grace])

        #expect(observer.entries == [
            "employees replacement old=[Ada, Alan] new=[Katherine, Grace] indexes=[0, 2] prior=false",
        ])
    }

    @Test func proxyMutationsWithoutOldOrNewCarryKindAndIndexesOnly() throws {
        let department = makeDepartment([ada])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees")
        let proxy = try department.mutableArrayValue(forKey: "employees")

        try proxy.append(grace)
        try proxy.replace(at: 0, with: alan)
        try proxy.remove(at: 1)

        #expect(observer.entries == [
            "employees insertion old=nil new=nil indexes=[1] prior=false",
            "employees replacement old=nil new=nil indexes=[0] prior=false",
            "employees removal old=nil new=nil indexes=[1] prior=false",
        ])
    }

    @Test func failedProxyMutationDoesNotNotify() throws {
        let department = makeDepartment([ada])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new])
        let proxy = try department.mutableArrayValue(forKey: "employees")

        #expect(throws: KeyValueCodingError.self) { try proxy.insert(grace, at: 5) }
        #expect(throws: KeyValueCodingError.self) { try proxy.append("not an employee") }
        #expect(throws: KeyValueCodingError.self) { try proxy.remove(at: 3) }

        #expect(observer.entries == [])
        #expect(names(department.employees) == ["Ada"])
    }

    @Test func typedAssignmentOfTheWholeArrayIsASetting() throws {
        let department = makeDepartment([ada])
        let observer = ChangeLog()
        #expect(throws: Never.self) { try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new]) }

        department.employees = [grace, alan]
        department.employees.append(kath)

        #expect(observer.entries == [
            "employees setting old=[Ada] new=[Grace, Alan] prior=false",
            "employees setting old=[Grace, Alan] new=[Grace, Alan, Katherine] prior=false",
        ])
    }

    @Test func proxyOnAnotherOrderedRelationshipNotifiesPrecisely() throws {
        let manager = Employee(firstName: "Mary", lastName: "Jackson", employeeID: 9, salary: 1)
        manager.directReports = [ada]
        let observer = ChangeLog()
        try manager.addObserver(observer, forKeyPath: "directReports", options: [.old, .new])

        try manager.mutableArrayValue(forKey: "directReports").insert(grace, at: 0)

        #expect(observer.entries == ["directReports insertion old=nil new=[Grace] indexes=[0] prior=false"])
    }

    // MARK: Ordered: manual notification

    @Test func manualOrderedInsertion() throws {
        let playlist = KVOPlaylist()
        playlist.tracks = ["a", "c"]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try playlist.addObserver(observer, forKeyPath: "tracks", options: [.old, .new]) }

        playlist.insertTracks(["b", "d"], at: IndexSet([1, 3]))

        #expect(observer.entries == ["tracks insertion old=nil new=[b, d] indexes=[1, 3] prior=false"])
        #expect(playlist.tracks == ["a", "b", "c", "d"])
    }

    @Test func manualOrderedRemovalReadsTheOldObjectsAtWill() throws {
        let playlist = KVOPlaylist()
        playlist.tracks = ["a", "b", "c", "d"]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try playlist.addObserver(observer, forKeyPath: "tracks", options: [.prior, .old, .new]) }

        playlist.removeTracks(at: IndexSet([0, 3]))

        #expect(observer.entries == [
            "tracks removal old=[a, d] new=nil indexes=[0, 3] prior=true",
            "tracks removal old=[a, d] new=nil indexes=[0, 3] prior=false",
        ])
        #expect(playlist.tracks == ["b", "c"])
    }

    @Test func manualOrderedReplacement() throws {
        let playlist = KVOPlaylist()
        playlist.tracks = ["a", "b"]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try playlist.addObserver(observer, forKeyPath: "tracks", options: [.prior, .old, .new]) }

        playlist.replaceTrack(at: 1, with: "z")

        #expect(observer.entries == [
            "tracks replacement old=[b] new=nil indexes=[1] prior=true",
            "tracks replacement old=[b] new=[z] indexes=[1] prior=false",
        ])
    }

    // MARK: Unordered: mutable set proxy

    @Test func setProxyInsertIntoAnEmptySet() throws {
        let team = KVOTeam()
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").formUnion([ada, grace, alan])

        #expect(observer.entries == ["members insertion old=nil new={Ada, Alan, Grace} prior=false"])
        #expect(team.members == [ada, grace, alan])
    }

    @Test func setProxyUnionInsertsOnlyTheObjectsNotAlreadyPresent() throws {
        let team = KVOTeam()
        team.members = [ada]
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").formUnion([ada, grace])

        #expect(observer.entries == ["members insertion old=nil new={Grace} prior=false"])
    }

    @Test func setProxyUnionOfObjectsAllPresentNotifiesAnEmptyInsertion() throws {
        let team = KVOTeam()
        team.members = [ada, grace]
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").insert(ada)

        #expect(observer.entries == ["members insertion old=nil new={} prior=false"])
    }

    @Test func setProxyMinusRemovesOnlyTheObjectsThatWerePresent() throws {
        let team = KVOTeam()
        team.members = [ada, grace]
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").subtract([grace, alan])

        #expect(observer.entries == ["members removal old={Grace} new=nil prior=false"])
        #expect(team.members == [ada])
    }

    @Test func setProxyRemoveOneObject() throws {
        let team = KVOTeam()
        team.members = [ada, grace]
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").remove(ada)

        #expect(observer.entries == ["members removal old={Ada} new=nil prior=false"])
    }

    @Test func setProxyIntersectRemovesTheObjectsNotKept() throws {
        let team = KVOTeam()
        team.members = [ada, grace, alan]
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").formIntersection([grace, kath])

        #expect(observer.entries == ["members removal old={Ada, Alan} new=nil prior=false"])
        #expect(team.members == [grace])
    }

    @Test func setProxySetElementsIsAReplacement() throws {
        let team = KVOTeam()
        team.members = [ada, grace]
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").setElements([grace, alan])

        #expect(observer.entries == ["members replacement old={Ada} new={Alan} prior=false"])
        #expect(team.members == [grace, alan])
    }

    @Test func setProxyRemoveAllIsOneRemovalOfEverything() throws {
        let team = KVOTeam()
        team.members = [ada, grace]
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").removeAll()

        #expect(observer.entries == ["members removal old={Ada, Grace} new=nil prior=false"])
    }

    @Test func setMutationValuesAreSetsWithoutIndexes() throws {
        let team = KVOTeam()
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").insert(ada)

        let change = try #require(observer.changes.first)
        #expect(change.indexes == nil)
        #expect(change.newValue is Set<AnyHashable>)
    }

    // MARK: Unordered: manual notification

    @Test func manualSetMutationUnion() throws {
        let playlist = KVOPlaylist()
        playlist.tags = ["jazz"]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try playlist.addObserver(observer, forKeyPath: "tags", options: [.old, .new]) }

        playlist.mutateTags(.union, with: ["jazz", "live", "vinyl"])

        #expect(observer.entries == ["tags insertion old=nil new={live, vinyl} prior=false"])
    }

    @Test func manualSetMutationMinus() throws {
        let playlist = KVOPlaylist()
        playlist.tags = ["jazz", "live"]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try playlist.addObserver(observer, forKeyPath: "tags", options: [.old, .new]) }

        playlist.mutateTags(.minus, with: ["live", "rock"])

        #expect(observer.entries == ["tags removal old={live} new=nil prior=false"])
    }

    @Test func manualSetMutationIntersect() throws {
        let playlist = KVOPlaylist()
        playlist.tags = ["jazz", "live", "vinyl"]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try playlist.addObserver(observer, forKeyPath: "tags", options: [.old, .new]) }

        playlist.mutateTags(.intersect, with: ["live", "rock"])

        #expect(observer.entries == ["tags removal old={jazz, vinyl} new=nil prior=false"])
        #expect(playlist.tags == ["live"])
    }

    @Test func manualSetMutationSet() throws {
        let playlist = KVOPlaylist()
        playlist.tags = ["jazz"]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try playlist.addObserver(observer, forKeyPath: "tags", options: [.prior, .old, .new]) }

        playlist.mutateTags(.set, with: ["rock"])

        #expect(observer.entries == [
            "tags replacement old={jazz} new=nil prior=true",
            "tags replacement old={jazz} new={rock} prior=false",
        ])
    }

    // MARK: Bulk modifiers

    @Test func bulkModifierThroughTheProxyPostsOneInsertion() throws {
        let department = KVOBulkDepartment(name: "Engineering")
        department.employees = [ada]
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees", options: [.prior, .old, .new])

        try department.addObjectsToEmployees(from: [grace, alan, kath])

        #expect(observer.entries == [
            "employees insertion old=nil new=nil indexes=[1, 2, 3] prior=true",
            "employees insertion old=nil new=[Grace, Alan, Katherine] indexes=[1, 2, 3] prior=false",
        ])
    }

    @Test func manualBulkModifierPostsOneInsertion() throws {
        let department = KVOManualDepartment(name: "Engineering")
        department.employees = [ada]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try department.addObserver(observer, forKeyPath: "employees", options: [.old, .new]) }

        department.addObjectsToEmployees(from: [grace, alan])

        #expect(observer.entries == ["employees insertion old=nil new=[Grace, Alan] indexes=[1, 2] prior=false"])
        #expect(names(department.employees) == ["Ada", "Grace", "Alan"])
    }

    // MARK: Key paths through to-many relationships

    @Test func keyPathThroughAToManyRelationshipIsNotifiedAsASettingOfTheWholeArray() throws {
        let department = makeDepartment([ada, grace])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees.firstName", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").append(alan)
        grace.firstName = "Amazing Grace"

        #expect(observer.entries == [
            "employees.firstName setting old=[Ada, Grace] new=[Ada, Grace, Alan] prior=false",
            "employees.firstName setting old=[Ada, Grace, Alan] new=[Ada, Amazing Grace, Alan] prior=false",
        ])
    }

    @Test func keyPathThroughAToManyRelationshipStopsHearingRemovedObjects() throws {
        let department = makeDepartment([ada, grace])
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "employees.salary", options: [.new])

        try department.mutableArrayValue(forKey: "employees").remove(at: 0)
        ada.salary = 999
        grace.salary = 201

        #expect(observer.entries == [
            "employees.salary setting old=nil new=[200.0] prior=false",
            "employees.salary setting old=nil new=[201.0] prior=false",
        ])
    }

    @Test func keyPathThroughASetRelationshipCollectsASet() throws {
        let team = KVOTeam()
        team.members = [ada]
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members.lastName", options: [.old, .new])

        try team.mutableSetValue(forKey: "members").insert(grace)
        ada.lastName = "King"

        #expect(observer.entries == [
            "members.lastName setting old={Lovelace} new={Hopper, Lovelace} prior=false",
            "members.lastName setting old={Hopper, Lovelace} new={Hopper, King} prior=false",
        ])
    }
}
