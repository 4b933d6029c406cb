import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// Tokens are values: equal by store and number, ordered within a store, and kept with Codable
/// or the library's keyed archiver.
@Suite struct PersistentHistoryTokenTests {
    private let token = PersistentHistoryToken(storeIdentifier: "STORE", transactionNumber: 42)

    @Test func tokensCompareByStoreAndNumber() {
        let same = PersistentHistoryToken(storeIdentifier: "STORE", transactionNumber: 42)
        let later = PersistentHistoryToken(storeIdentifier: "STORE", transactionNumber: 43)
        let other = PersistentHistoryToken(storeIdentifier: "OTHER", transactionNumber: 43)
        #expect(token == same)
        #expect(Set([token, same, later]).count == 2)
        #expect(token < later)
        #expect(!(later < token))
        // Other stores sort by identifier, whatever the numbers.
        #expect(other < token && !(token < other))
        #expect([later, other, token].sorted() == [other, token, later])
        #expect(token != other)
        #expect(token.description == "STORE#42")
    }

    @Test func tokensRoundTripThroughCodable() throws {
        let data = try JSONEncoder().encode(token)
        #expect(try JSONDecoder().decode(PersistentHistoryToken.self, from: data) == token)
        let plist = try PropertyListEncoder().encode([token])
        #expect(try PropertyListDecoder().decode([PersistentHistoryToken].self, from: plist) == [token])
    }

    @Test(arguments: [
        #"{"storeIdentifier":"","transactionNumber":1}"#, #"{"storeIdentifier":"S","transactionNumber":-1}"#,
        #"{"storeIdentifier":"S"}"#,
    ])
    func decodingRefusesWhatIsNotAToken(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PersistentHistoryToken.self, from: Data(json.utf8)) }
    }

    @Test func tokensRoundTripThroughTheKeyedArchiver() throws {
        let data = try token.archivedData()
        #expect(try PersistentHistoryToken(archivedData: data) == token)
        // Inside another archive, once the class is known to unarchivers.
        let archived = try KeyedArchiver.archivedData(withRootObject: ["last": token])
        let decoded = try KeyedUnarchiver.unarchivedObject(ofClasses: [.dictionary, .class(PersistentHistoryToken.self)], from: archived)
        #expect((decoded as? [String: Any])?["last"] as? PersistentHistoryToken == token)
    }

    @Test func unarchivingRefusesArchivesThatHoldNoValidToken() throws {
        expectArchiveError(.typeMismatch) {
            try PersistentHistoryToken(archivedData: try KeyedArchiver.archivedData(withRootObject: "text"))
        }
        #expect(throws: ArchiveError.self) { try PersistentHistoryToken(archivedData: Data("garbage".utf8)) }
        expectArchiveError(.invalidValue) {
            try PersistentHistoryToken(archivedData: try PersistentHistoryToken(storeIdentifier: "S", transactionNumber: -5).archivedData())
        }
        expectArchiveError(.valueNotFound) {
            try PersistentHistoryToken(archivedData: try PersistentHistoryToken(storeIdentifier: "", transactionNumber: 1).archivedData())
        }
    }

    @Test func tokensCrossTasks() async throws {
        let token = self.token
        let echoed = await Task.detached { token }.value
        #expect(echoed == token)
    }
}
