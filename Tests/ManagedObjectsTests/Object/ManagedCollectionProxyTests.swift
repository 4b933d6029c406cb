import Foundation
import Testing
@testable import ManagedObjects
import ModelObjects

/// Mutable collection proxies of managed objects check the key when they are made.
@Suite struct ManagedCollectionProxyTests {
    @Test func setProxyForAKeyTheEntityDoesNotModelThrowsAtOnce() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        #expect { _ = try research.mutableSetValue(forKey: "noSuchKey") } throws: { error in
            KeyValueCodingError.Code.undefinedKey ~= error
        }
    }

    @Test func arrayProxyForAKeyTheEntityDoesNotModelThrowsAtOnce() throws {
        let stack = try ManagedTestStack()
        let project = TestProject(context: stack.context)
        #expect { _ = try project.mutableArrayValue(forKey: "noSuchKey") } throws: { error in
            KeyValueCodingError.Code.undefinedKey ~= error
        }
    }

    @Test func proxyForAModeledAttributeThrowsNotACollectionAtOnce() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        #expect { _ = try research.mutableSetValue(forKey: "name") } throws: { error in
            KeyValueCodingError.Code.notACollection ~= error
        }
    }

    @Test func proxyForAModeledToManyKeyIsMadeWithoutFiringTheFault() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        research.employees.insert(stack.employee("Ada"))
        try stack.context.save()
        let other = stack.makeContext()
        let fault = try #require(other.object(with: research.objectID) as? TestDepartment)
        #expect(fault.isFault)
        let employees = try fault.mutableSetValue(forKey: "employees")
        #expect(fault.isFault)
        #expect(try employees.count() == 1)
    }
}
