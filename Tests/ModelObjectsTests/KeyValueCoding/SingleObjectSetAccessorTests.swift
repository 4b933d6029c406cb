import Foundation
import ModelObjects
import Testing

/// A set proxy calls `add<Key>Object:`/`remove<Key>Object:` for one object and
/// `add<Key>:`/`remove<Key>:` for bulk changes, when the class has both.
@Suite struct SingleObjectSetAccessorTests {
    @Test func insertingOneObjectCallsTheSingleObjectAccessor() throws {
        let shelf = Shelf()
        try shelf.mutableSetValue(forKey: "books").insert("Emma")
        #expect(shelf.calls == ["addBooksObject(Emma)"])
    }

    @Test func removingOneObjectCallsTheSingleObjectAccessor() throws {
        let shelf = Shelf()
        shelf.bookStorage = ["Emma", "Persuasion"]
        try shelf.mutableSetValue(forKey: "books").remove("Emma")
        #expect(shelf.calls == ["removeBooksObject(Emma)"])
        #expect(shelf.bookStorage == ["Persuasion"])
    }

    @Test func bulkChangesCallTheBulkAccessors() throws {
        let shelf = Shelf()
        let books = try shelf.mutableSetValue(forKey: "books")
        try books.formUnion(["Emma", "Persuasion"])
        try books.subtract(["Emma", "Ulysses"])
        try books.removeAll()
        #expect(shelf.calls == ["addBooks(Emma,Persuasion)", "removeBooks(Emma,Ulysses)", "removeBooks(Persuasion)"])
        #expect(shelf.bookStorage.isEmpty)
    }

    @Test func observersSeeTheSameChangeEitherWay() throws {
        let shelf = Shelf()
        let log = KVOEventLog()
        let token = try shelf.observe("books", options: [.old, .new], changeHandler: log.handler(for: "books"))
        let books = try shelf.mutableSetValue(forKey: "books")
        try books.insert("Emma")
        try books.formUnion(["Emma", "Persuasion"])
        try books.remove("Emma")
        #expect(log.entries == [
            "books insertion old=nil new={Emma} prior=false",
            "books insertion old=nil new={Persuasion} prior=false",
            "books removal old={Emma} new=nil prior=false",
        ])
        token.invalidate()
    }
}
