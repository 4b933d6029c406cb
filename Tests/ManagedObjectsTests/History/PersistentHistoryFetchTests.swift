import Foundation
import Testing
@testable import ManagedObjects

/// Fetching history after a token or a date, deleting it before one, and the tokens that expire.
@Suite struct PersistentHistoryFetchTests {
    /// Three transactions, one note each, titled "1", "2", "3".
    private func stackWithThreeTransactions(_ kind: HistoryStack.Kind) throws -> (HistoryStack, [PersistentHistoryTransaction]) {
        let stack = try HistoryStack(kind)
        for title in ["1", "2", "3"] { try stack.insertNote(title) }
        let transactions = try stack.history()
        try #require(transactions.count == 3)
        return (stack, transactions)
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func fetchAfterATokenReturnsTheLaterTransactionsOldestFirst(kind: HistoryStack.Kind) throws {
        let (stack, all) = try stackWithThreeTransactions(kind)
        #expect(all.map(\.transactionNumber) == [1, 2, 3])
        #expect(try stack.history(after: all[0].token) == Array(all[1...]))
        #expect(try stack.context.execute(.fetchHistory(after: all[1])).transactions == [all[2]])
        #expect(try stack.context.execute(.fetchHistory(after: nil as PersistentHistoryTransaction?)).transactions == all)
        #expect(try stack.history(after: stack.coordinator.currentPersistentHistoryToken()).isEmpty)
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func fetchLimitReturnsTheOldestTransactionsFirst(kind: HistoryStack.Kind) throws {
        let (stack, all) = try stackWithThreeTransactions(kind)
        var request = PersistentHistoryChangeRequest.fetchHistory(after: all[0].token)
        request.fetchLimit = 1
        #expect(try stack.context.execute(request).transactions == [all[1]])
        request.fetchLimit = -1
        expectPersistenceError(.invalidHistoryToken) { try stack.context.execute(request) }
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func fetchAfterADateReturnsTransactionsWithLaterTimestamps(kind: HistoryStack.Kind) throws {
        let (stack, all) = try stackWithThreeTransactions(kind)
        #expect(try stack.context.execute(.fetchHistory(after: Date.distantPast)).transactions == all)
        #expect(try stack.context.execute(.fetchHistory(after: all[0].timestamp)).transactions.allSatisfy { $0.timestamp > all[0].timestamp })
        #expect(try stack.context.execute(.fetchHistory(after: Date.distantFuture)).transactions.isEmpty)
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func deleteBeforeATokenKeepsTheTokensTransactionAndExpiresOlderTokens(kind: HistoryStack.Kind) throws {
        let (stack, all) = try stackWithThreeTransactions(kind)
        let result = try stack.context.execute(.deleteHistory(before: all[1].token))
        #expect(result.deletedTransactionCount == 1)
        #expect(result.transactions.isEmpty)
        #expect(try stack.history() == Array(all[1...]))
        // The token of the deleted transaction still works: nothing after it was deleted.
        #expect(try stack.history(after: all[0].token) == Array(all[1...]))
        expectPersistenceError(.historyTokenExpired) {
            try stack.history(after: PersistentHistoryToken(storeIdentifier: stack.store.identifier, transactionNumber: 0))
        }
        // Nothing left before it: nothing deleted, and nothing expires further.
        #expect(try stack.context.execute(.deleteHistory(before: all[1])).deletedTransactionCount == 0)
        #expect(try stack.history(after: all[0].token).count == 2)
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func deleteEverythingKeepsNumbersGrowingAndTheCurrentToken(kind: HistoryStack.Kind) throws {
        let (stack, all) = try stackWithThreeTransactions(kind)
        #expect(try stack.context.execute(.deleteHistory(before: nil as PersistentHistoryToken?)).deletedTransactionCount == 3)
        #expect(try stack.history(after: all[2].token).isEmpty)
        #expect(try stack.coordinator.currentPersistentHistoryToken() == all[2].token)
        expectPersistenceError(.historyTokenExpired) { try stack.history(after: all[1].token) }
        try stack.insertNote("4")
        #expect(try stack.history(after: all[2].token).map(\.transactionNumber) == [4])
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func deleteBeforeADateDeletesOlderTransactions(kind: HistoryStack.Kind) throws {
        let (stack, all) = try stackWithThreeTransactions(kind)
        #expect(try stack.context.execute(.deleteHistory(before: Date.distantPast)).deletedTransactionCount == 0)
        #expect(try stack.context.execute(.deleteHistory(before: Date.distantFuture)).deletedTransactionCount == 3)
        #expect(try stack.history().isEmpty)
        expectPersistenceError(.historyTokenExpired) { try stack.history(after: all[0].token) }
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func aTokenOfAnotherStoreIsRefused(kind: HistoryStack.Kind) throws {
        let (stack, _) = try stackWithThreeTransactions(kind)
        let stranger = PersistentHistoryToken(storeIdentifier: "elsewhere", transactionNumber: 1)
        // The coordinator has no such store.
        expectPersistenceError(.noPersistentStore) { try stack.history(after: stranger) }
        let store = try #require(stack.store as? any PersistentHistoryStore)
        expectPersistenceError(.invalidHistoryToken) { try store.execute(.fetchHistory(after: stranger)) }
        expectPersistenceError(.invalidHistoryToken) { try store.execute(.deleteHistory(before: stranger)) }
        let negative = PersistentHistoryToken(storeIdentifier: stack.store.identifier, transactionNumber: -1)
        expectPersistenceError(.invalidHistoryToken) { try store.execute(.fetchHistory(after: negative)) }
    }

    @Test func requestsDescribeWhatTheyDo() {
        let token = PersistentHistoryToken(storeIdentifier: "S", transactionNumber: 2)
        #expect(PersistentHistoryChangeRequest.fetchHistory(after: token).token == token)
        #expect(!PersistentHistoryChangeRequest.fetchHistory(after: token).isDelete)
        #expect(PersistentHistoryChangeRequest.deleteHistory(before: token).isDelete)
        #expect(PersistentHistoryChangeRequest.deleteHistory(before: Date()).token == nil)
        #expect(PersistentHistoryChangeRequest.fetchHistory(after: Date()).token == nil)
    }

    @Test func damagedHistoryRowsThrowOperationFailed() throws {
        let stack = try HistoryStack(.sqlite)
        let note = try stack.insertNote("row")
        stack.context.delete(note)
        try stack.context.save()
        let url = try #require(stack.store.url)
        let connection = try SQLiteConnection(path: url.path, create: false)
        try connection.execute("UPDATE \"ATOMBSTONE\" SET \"ZVALUE\" = 'not a uuid' WHERE \"ZNAME\" = 'uuid'")
        expectPersistenceError(.operationFailed) { try stack.history() }
        try connection.execute("DELETE FROM \"ATOMBSTONE\"")
        try connection.execute("UPDATE \"ACHANGE\" SET \"ZCHANGETYPE\" = 7 WHERE \"Z_PK\" = 1")
        expectPersistenceError(.operationFailed) { try stack.history() }
        try connection.execute("UPDATE \"ACHANGE\" SET \"ZCHANGETYPE\" = 0, \"ZENTITY\" = 'Gone' WHERE \"Z_PK\" = 1")
        // An entity the model no longer has: its changes are left out.
        #expect(try stack.history().map(\.changes.count) == [0, 1])
        try connection.execute("INSERT INTO \"Z_METADATA\" (\"Z_KEY\", \"Z_VALUE\") VALUES ('historyDeletedThrough', 'many')")
        expectPersistenceError(.operationFailed) { try stack.history() }
    }
}
