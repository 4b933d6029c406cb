import Foundation
import Testing
import ModelObjects
import SampleModels

/// Keys whose values depend on other key paths (`keyPathsForValuesAffectingValue(forKey:)`,
/// `@Derived`, legacy `setKeys`): observers of the dependent key hear about changes of what it
/// depends on, once per change, in the same will/did bracket.
@Suite struct DependentKeyTests {
    private func makeAda() -> Employee {
        Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    }

    // MARK: Employee's derived keys

    @Test func fullNameHearsFirstNameWithOldAndNewFullName() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullName", options: [.old, .new]) }

        ada.firstName = "Augusta"

        #expect(observer.entries == ["fullName setting old=Ada Lovelace new=Augusta Lovelace prior=false"])
    }

    @Test func fullNameHearsLastName() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "fullName", options: [.old, .new])

        try ada.setValue("King", forKey: "lastName")

        #expect(observer.entries == ["fullName setting old=Ada Lovelace new=Ada King prior=false"])
    }

    @Test func fullNameDoesNotHearUnrelatedKeys() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullName", options: [.old, .new]) }

        ada.salary = 1
        ada.employeeID = 2

        #expect(observer.entries == [])
    }

    @Test func fullNameWithPriorGetsOneBracketPerChange() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullName", options: [.prior, .old, .new]) }

        ada.firstName = "Augusta"

        #expect(observer.entries == [
            "fullName setting old=Ada Lovelace new=nil prior=true",
            "fullName setting old=Ada Lovelace new=Augusta Lovelace prior=false",
        ])
    }

    @Test func fullNameAndIDHearsEachOfItsThreeKeys() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullNameAndID", options: [.old, .new]) }

        ada.employeeID = 7
        ada.firstName = "Augusta"
        ada.lastName = "King"
        ada.salary = 5

        #expect(observer.entries == [
            "fullNameAndID setting old=Ada Lovelace (1) new=Ada Lovelace (7) prior=false",
            "fullNameAndID setting old=Ada Lovelace (7) new=Augusta Lovelace (7) prior=false",
            "fullNameAndID setting old=Augusta Lovelace (7) new=Augusta King (7) prior=false",
        ])
    }

    @Test func departmentNameHearsTheDepartmentsName() throws {
        let ada = makeAda()
        let engineering = Department(name: "Engineering")
        ada.department = engineering
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "departmentName", options: [.old, .new]) }

        engineering.name = "R&D"

        #expect(observer.entries == ["departmentName setting old=Engineering new=R&D prior=false"])
        #expect(observer.objects == [ObjectIdentifier(ada)])
    }

    @Test func departmentNameFollowsAReplacedDepartment() throws {
        let ada = makeAda()
        let engineering = Department(name: "Engineering")
        let sales = Department(name: "Sales")
        ada.department = engineering
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "departmentName", options: [.old, .new]) }

        ada.department = sales
        engineering.name = "Old"
        sales.name = "New"
        ada.department = nil
        sales.name = "Detached"

        #expect(observer.entries == [
            "departmentName setting old=Engineering new=Sales prior=false",
            "departmentName setting old=Sales new=New prior=false",
            "departmentName setting old=New new=nil prior=false",
        ])
    }

    // MARK: Overrides and legacy registration

    @Test func overrideCallingSuperKeepsDeclaredDependenciesAndAddsItsOwn() throws {
        let formal = KVOFormalEmployee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        formal.title = "Lady"
        let observer = ChangeLog()
        #expect(throws: Never.self) { try formal.addObserver(observer, forKeyPath: "formalName", options: [.old, .new]) }

        formal.title = "Countess"
        formal.lastName = "King"
        formal.firstName = "Augusta"

        #expect(observer.entries == [
            "formalName setting old=Lady Lovelace new=Countess Lovelace prior=false",
            "formalName setting old=Countess Lovelace new=Countess King prior=false",
        ])
    }

    @Test func overrideOfASubclassKeepsTheSuperclassDerivedKeysWorking() throws {
        let formal = KVOFormalEmployee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try formal.addObserver(observer, forKeyPath: "fullName", options: [.old, .new]) }

        formal.firstName = "Augusta"
        formal.title = "Countess"

        #expect(observer.entries == ["fullName setting old=Ada Lovelace new=Augusta Lovelace prior=false"])
        #expect(KVOFormalEmployee.keyPathsForValuesAffectingValue(forKey: "formalName") == ["lastName", "title"])
        #expect(KVOFormalEmployee.keyPathsForValuesAffectingValue(forKey: "fullName") == ["firstName", "lastName"])
    }

    @Test func legacySetKeysTriggersTheDependentKey() throws {
        KVOLegacyEmployee.registerLegacyDependencies()
        let ada = KVOLegacyEmployee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "greetingName", options: [.old, .new]) }

        ada.nickname = "Countess"
        ada.firstName = "Augusta"
        ada.nickname = ""
        ada.lastName = "King"

        #expect(observer.entries == [
            "greetingName setting old=Ada new=Countess prior=false",
            "greetingName setting old=Countess new=Countess prior=false",
            "greetingName setting old=Countess new=Augusta prior=false",
        ])
        #expect(KVOLegacyEmployee.keyPathsForValuesAffectingValue(forKey: "greetingName") == ["nickname", "firstName"])
    }

    @Test func legacySetKeysIsInheritedBySubclasses() throws {
        KVOLegacyEmployee.registerLegacyDependencies()
        let ada = KVOLegacyEmployeeSubclass(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "greetingName", options: [.old, .new]) }

        ada.firstName = "Augusta"

        #expect(observer.entries == ["greetingName setting old=Ada new=Augusta prior=false"])
    }

    // MARK: Chains and cycles

    @Test func chainOfDependenciesNotifiesEveryLevelOnce() throws {
        let chain = KVOChain()
        let log = KVOEventLog()
        let aObserver = ChangeLog("a", log: log)
        let bObserver = ChangeLog("b", log: log)
        #expect(throws: Never.self) { try chain.addObserver(aObserver, forKeyPath: "a", options: [.old, .new]) }
        #expect(throws: Never.self) { try chain.addObserver(bObserver, forKeyPath: "b", options: [.old, .new]) }

        chain.c = 2

        #expect(log.entries == [
            "b: b setting old=10 new=20 prior=false",
            "a: a setting old=11 new=21 prior=false",
        ])
        kvoKeepAlive(aObserver, bObserver)
    }

    @Test func chainEndDoesNotHearTheMiddle() throws {
        // `c` does not depend on anything: its observers hear only its own changes.
        let chain = KVOChain()
        let observer = ChangeLog()
        try chain.addObserver(observer, forKeyPath: "c", options: [.old, .new])

        try chain.setValue(3, forKey: "c")

        #expect(observer.entries == ["c setting old=1 new=3 prior=false"])
    }

    @Test func dependencyCycleTerminatesAndNotifiesOncePerChange() throws {
        let cycle = KVOCycle()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try cycle.addObserver(observer, forKeyPath: "x", options: [.old, .new]) }

        cycle.x = 1
        cycle.y = 2
        cycle.z = 3

        #expect(observer.entries == [
            "x setting old=0 new=1 prior=false",
            "x setting old=1 new=1 prior=false",
            "x setting old=1 new=1 prior=false",
        ])
    }

    @Test func dependencyCycleWithAllKeysObserved() throws {
        let cycle = KVOCycle()
        let log = KVOEventLog()
        let observers = ["x", "y", "z"].map { ChangeLog($0, log: log) }
        for (key, observer) in zip(["x", "y", "z"], observers) {
            #expect(throws: Never.self) { try cycle.addObserver(observer, forKeyPath: key, options: [.new]) }
        }

        cycle.y = 5

        #expect(log.entries == [
            "z: z setting old=nil new=0 prior=false",
            "y: y setting old=nil new=5 prior=false",
            "x: x setting old=nil new=0 prior=false",
        ])
        kvoKeepAlive(observers[0], observers[1], observers[2])
    }

    // MARK: To-many dependency: Department.totalSalary on employees.@sum.salary

    @Test func totalSalaryHearsEmployeesAddedAndRemoved() throws {
        let department = Department(name: "Engineering")
        let ada = makeAda()
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        department.employees = [ada]
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "totalSalary", options: [.old, .new])

        let employees = try department.mutableArrayValue(forKey: "employees")
        try employees.append(grace)
        try employees.remove(at: 0)
        department.employees = []

        #expect(observer.entries == [
            "totalSalary setting old=100.0 new=300.0 prior=false",
            "totalSalary setting old=300.0 new=200.0 prior=false",
            "totalSalary setting old=200.0 new=0.0 prior=false",
        ])
    }

    @Test func totalSalaryHearsAnyCurrentEmployeesSalary() throws {
        let department = Department(name: "Engineering")
        let ada = makeAda()
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        department.employees = [ada, grace]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try department.addObserver(observer, forKeyPath: "totalSalary", options: [.old, .new]) }

        grace.salary = 250
        ada.salary = 150
        ada.firstName = "Augusta"

        #expect(observer.entries == [
            "totalSalary setting old=300.0 new=350.0 prior=false",
            "totalSalary setting old=350.0 new=400.0 prior=false",
        ])
        #expect(observer.objects == [ObjectIdentifier(department), ObjectIdentifier(department)])
    }

    @Test func totalSalaryHearsEmployeesAddedAfterRegistration() throws {
        let department = Department(name: "Engineering")
        let alan = Employee(firstName: "Alan", lastName: "Turing", employeeID: 3, salary: 300)
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "totalSalary", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").insert(alan, at: 0)
        alan.salary = 310

        #expect(observer.entries == [
            "totalSalary setting old=0.0 new=300.0 prior=false",
            "totalSalary setting old=300.0 new=310.0 prior=false",
        ])
    }

    @Test func totalSalaryStopsHearingARemovedEmployee() throws {
        let department = Department(name: "Engineering")
        let ada = makeAda()
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        department.employees = [ada, grace]
        let observer = ChangeLog()
        try department.addObserver(observer, forKeyPath: "totalSalary", options: [.old, .new])

        try department.mutableArrayValue(forKey: "employees").remove(at: 0)
        ada.salary = 1_000

        #expect(observer.entries == ["totalSalary setting old=300.0 new=200.0 prior=false"])
    }

    @Test func totalSalaryStopsHearingEmployeesReplacedByATypedSet() throws {
        let department = Department(name: "Engineering")
        let ada = makeAda()
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        department.employees = [ada]
        let observer = ChangeLog()
        #expect(throws: Never.self) { try department.addObserver(observer, forKeyPath: "totalSalary", options: [.old, .new]) }

        department.employees = [grace]
        ada.salary = 1
        grace.salary = 201

        #expect(observer.entries == [
            "totalSalary setting old=100.0 new=200.0 prior=false",
            "totalSalary setting old=200.0 new=201.0 prior=false",
        ])
    }

    // MARK: Ordering between a key and its dependents

    @Test func keyRegisteredBeforeItsDependentIsToldFirstBeforeAndLastAfter() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let key = ChangeLog("key", log: log)
        let dependent = ChangeLog("dependent", log: log)
        #expect(throws: Never.self) { try ada.addObserver(key, forKeyPath: "firstName", options: [.prior, .old, .new]) }
        #expect(throws: Never.self) { try ada.addObserver(dependent, forKeyPath: "fullName", options: [.prior, .old, .new]) }

        ada.firstName = "Augusta"

        #expect(log.entries == [
            "key: firstName setting old=Ada new=nil prior=true",
            "dependent: fullName setting old=Ada Lovelace new=nil prior=true",
            "dependent: fullName setting old=Ada Lovelace new=Augusta Lovelace prior=false",
            "key: firstName setting old=Ada new=Augusta prior=false",
        ])
        kvoKeepAlive(key, dependent)
    }

    @Test func dependentRegisteredBeforeItsKeyIsToldFirstBeforeAndLastAfter() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let dependent = ChangeLog("dependent", log: log)
        let key = ChangeLog("key", log: log)
        #expect(throws: Never.self) { try ada.addObserver(dependent, forKeyPath: "fullName", options: [.prior, .old, .new]) }
        #expect(throws: Never.self) { try ada.addObserver(key, forKeyPath: "firstName", options: [.prior, .old, .new]) }

        ada.firstName = "Augusta"

        #expect(log.entries == [
            "dependent: fullName setting old=Ada Lovelace new=nil prior=true",
            "key: firstName setting old=Ada new=nil prior=true",
            "key: firstName setting old=Ada new=Augusta prior=false",
            "dependent: fullName setting old=Ada Lovelace new=Augusta Lovelace prior=false",
        ])
        kvoKeepAlive(key, dependent)
    }

    @Test func orderBetweenAKeyAndAKeyPathDependentSurvivesReplacingTheIntermediate() throws {
        // departmentName depends on department.name: replacing the department re-attaches the
        // dependent's observation, which must keep its place in registration order.
        let ada = makeAda()
        let engineering = Department(name: "Engineering")
        let sales = Department(name: "Sales")
        ada.department = engineering
        let log = KVOEventLog()
        let dependent = ChangeLog("dependent", log: log)
        let key = ChangeLog("key", log: log)
        #expect(throws: Never.self) { try ada.addObserver(dependent, forKeyPath: "departmentName", options: [.prior, .new]) }
        #expect(throws: Never.self) { try ada.addObserver(key, forKeyPath: "department", options: [.prior, .new]) }

        ada.department = sales
        ada.department = engineering

        #expect(log.entries == [
            "dependent: departmentName setting old=nil new=nil prior=true",
            "key: department setting old=nil new=nil prior=true",
            "key: department setting old=nil new=Sales prior=false",
            "dependent: departmentName setting old=nil new=Sales prior=false",
            "dependent: departmentName setting old=nil new=nil prior=true",
            "key: department setting old=nil new=nil prior=true",
            "key: department setting old=nil new=Engineering prior=false",
            "dependent: departmentName setting old=nil new=Engineering prior=false",
        ])
        kvoKeepAlive(key, dependent)
    }

    @Test func severalDependentsOfOneKeyFollowRegistrationOrder() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullNameAndID", options: [.prior, .new]) }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "lastName", options: [.prior, .new]) }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullName", options: [.prior, .new]) }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "firstName", options: [.prior, .new]) }

        ada.firstName = "Augusta"

        #expect(observer.entries == [
            "fullNameAndID setting old=nil new=nil prior=true",
            "fullName setting old=nil new=nil prior=true",
            "firstName setting old=nil new=nil prior=true",
            "firstName setting old=nil new=Augusta prior=false",
            "fullName setting old=nil new=Augusta Lovelace prior=false",
            "fullNameAndID setting old=nil new=Augusta Lovelace (1) prior=false",
        ])
    }

    @Test func dependentOldValueIsTakenBeforeTheChangeAndNewValueAfter() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        var fullNamesSeenInPrior: [String] = []
        observer.onChange = { _, _, object, change in
            if change.isPrior { fullNamesSeenInPrior.append((object as? Employee)?.fullName ?? "?") }
        }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullName", options: [.prior]) }

        ada.lastName = "King"

        #expect(fullNamesSeenInPrior == ["Ada Lovelace"])
        #expect(ada.fullName == "Ada King")
    }
}
