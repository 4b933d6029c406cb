import Foundation
import ModelObjects

/// A model whose attributes have custom accessors: a clamping setter with a `didSet` that keeps
/// a count in step, a normalising setter, a presenting getter, and collection-valued ones.
final class Clerk: ModelObject {
    @Attribute var salaryChanges = 0
    @CustomAttribute(
        set: { (_: Clerk, newValue: Double) in max(0, newValue) },
        didSet: { clerk, _ in clerk.salaryChanges += 1 })
    var salary = 0.0
    @CustomAttribute(set: { (_: Clerk, newValue: String) in newValue.trimmingCharacters(in: .whitespaces) })
    var name = ""
    @CustomAttribute(get: { (_: Clerk, stored: String?) in stored?.uppercased() })
    var code: String? = nil
    @CustomAttribute(set: { (_: Clerk, newValue: [String]) in newValue.sorted() })
    var tags: [String] = []
    @CustomAttribute(set: { (_: Clerk, newValue: Set<String>) in Set(newValue.map { $0.lowercased() }) })
    var labels: Set<String> = []
    @Relationship var desk: Desk?
}

/// The same keys with plain attributes, to write archives whose values the custom setters
/// must normalise when they are read back.
final class PlainClerk: ModelObject {
    @Attribute var salaryChanges = 0
    @Attribute var salary = 0.0
    @Attribute var name = ""
}

/// Leads to a clerk through a to-one relationship, for key paths.
final class Desk: ModelObject {
    @Attribute var number = 0
    @Relationship var clerk: Clerk?

    /// `number` is coerced to its magnitude and must stay below 1000.
    override class func validator(forKey key: String) -> KeyValueValidator? {
        guard key == "number" else { return super.validator(forKey: key) }
        return KeyValueValidator { (_: Desk, number: inout Int) in
            number = abs(number)
            if number >= 1000 { throw ValidationError(key: "number", value: number, message: "Desks are numbered below 1000") }
        }
    }
}

/// Serves keys through read-only collection accessors only: `months` with `countOf<Key>` and
/// `objectIn<Key>AtIndex:`, `seasons` with `countOf<Key>`, `enumeratorOf<Key>` and
/// `memberOf<Key>:`, `projects` (model objects) like `months`. Every accessor call is logged.
final class Almanac: ModelObject {
    var monthStorage = ["Jan", "Feb", "Mar"]
    var seasonStorage: Set<String> = ["spring", "summer"]
    var projectStorage: [Project] = [Project(name: "A", budget: 10), Project(name: "B", budget: 32)]
    var calls: [String] = []

    override class func collectionAccessors(forKey key: String) -> CollectionAccessors? {
        switch key {
        case "months":
            return .ordered(
                count: { (almanac: Almanac) in
                    almanac.calls.append("countOfMonths")
                    return almanac.monthStorage.count
                },
                objectAt: { almanac, index in
                    almanac.calls.append("objectInMonthsAtIndex(\(index))")
                    return almanac.monthStorage[index]
                })
        case "projects":
            return .ordered(
                count: { (almanac: Almanac) in almanac.projectStorage.count },
                objectAt: { almanac, index in almanac.projectStorage[index] })
        case "seasons":
            return .unordered(
                count: { (almanac: Almanac) in
                    almanac.calls.append("countOfSeasons")
                    return almanac.seasonStorage.count
                },
                enumerator: { almanac in
                    almanac.calls.append("enumeratorOfSeasons")
                    return AnyIterator(almanac.seasonStorage.makeIterator())
                },
                member: { almanac, season in
                    almanac.calls.append("memberOfSeasons(\(season))")
                    return almanac.seasonStorage.contains(season) ? season : nil
                })
        default:
            return super.collectionAccessors(forKey: key)
        }
    }
}

/// Serves `notes` (an array) and `tags` (a set) through the undefined-key hooks alone, and logs
/// what reaches them.
final class Scrapbook: ModelObject {
    var extras: [String: Any] = ["notes": ["first"], "tags": Set(["red"])]
    /// Served as the key "drafts"; nil until something is written.
    var drafts: [String]?
    var writes: [String] = []

    override func value(forUndefinedKey key: String) throws -> Any? {
        if key == "drafts" { return drafts }
        if let value = extras[key] { return value }
        return try super.value(forUndefinedKey: key)
    }

    override func setValue(_ value: Any?, forUndefinedKey key: String) throws {
        if key == "drafts" {
            drafts = (value as? [Any])?.compactMap { $0 as? String }
            return
        }
        guard extras[key] != nil else { return try super.setValue(value, forUndefinedKey: key) }
        willChangeValue(forKey: key)
        extras[key] = value
        didChangeValue(forKey: key)
        writes.append(key)
    }
}

/// A set key with both the single-object and the bulk accessors; every call is logged.
final class Shelf: ModelObject {
    var bookStorage: Set<String> = []
    var calls: [String] = []

    override class func collectionAccessors(forKey key: String) -> CollectionAccessors? {
        guard key == "books" else { return super.collectionAccessors(forKey: key) }
        return .unordered(
            members: { (shelf: Shelf) in shelf.bookStorage },
            addObject: { shelf, book in
                shelf.calls.append("addBooksObject(\(book))")
                shelf.bookStorage.insert(book)
            },
            removeObject: { shelf, book in
                shelf.calls.append("removeBooksObject(\(book))")
                shelf.bookStorage.remove(book)
            },
            add: { shelf, books in
                shelf.calls.append("addBooks(\(books.sorted().joined(separator: ",")))")
                shelf.bookStorage.formUnion(books)
            },
            remove: { shelf, books in
                shelf.calls.append("removeBooks(\(books.sorted().joined(separator: ",")))")
                shelf.bookStorage.subtract(books)
            })
    }
}

/// Custom accessors over storage the class holds (`-names`/`-setNames:` over an ivar, in Cocoa
/// terms) together with collection accessors for the same keys: `names` (ordered) and `badges`
/// (unordered). Every collection accessor call is logged.
final class Roster: ModelObject {
    var nameStorage: [String] = ["A", "B"]
    var badgeStorage: Set<String> = ["gold"]
    var calls: [String] = []
    @CustomAttribute(
        get: { (roster: Roster, _: [String]) in roster.nameStorage },
        set: { (roster: Roster, newValue: [String]) in
            roster.nameStorage = newValue
            return []
        })
    var names: [String] = []
    @CustomAttribute(
        get: { (roster: Roster, _: Set<String>) in roster.badgeStorage },
        set: { (roster: Roster, newValue: Set<String>) in
            roster.badgeStorage = newValue
            return []
        })
    var badges: Set<String> = []

    override class func collectionAccessors(forKey key: String) -> CollectionAccessors? {
        switch key {
        case "names":
            return .ordered(
                count: { (roster: Roster) in roster.nameStorage.count },
                objectAt: { roster, index in roster.nameStorage[index] },
                insert: { roster, name, index in
                    roster.calls.append("insert(\(name), \(index))")
                    roster.nameStorage.insert(name, at: index)
                },
                remove: { roster, index in
                    roster.calls.append("remove(\(index))")
                    roster.nameStorage.remove(at: index)
                },
                replace: { roster, index, name in
                    roster.calls.append("replace(\(index), \(name))")
                    roster.nameStorage[index] = name
                })
        case "badges":
            return .unordered(
                addObject: { (roster: Roster, badge: String) in
                    roster.calls.append("addBadgesObject(\(badge))")
                    roster.badgeStorage.insert(badge)
                },
                removeObject: { roster, badge in
                    roster.calls.append("removeBadgesObject(\(badge))")
                    roster.badgeStorage.remove(badge)
                })
        default:
            return super.collectionAccessors(forKey: key)
        }
    }
}

/// Serves `items` through the undefined-key hooks with a value that loses its last element at
/// every read after the first (class code whose answer changes between reads); counts the reads.
final class ShrinkingList: ModelObject {
    var items: [String] = ["a", "b", "c", "d"]
    var reads = 0

    override func value(forUndefinedKey key: String) throws -> Any? {
        guard key == "items" else { return try super.value(forUndefinedKey: key) }
        reads += 1
        if reads > 1, !items.isEmpty { items.removeLast() }
        return items
    }

    override func setValue(_ value: Any?, forUndefinedKey key: String) throws {
        guard key == "items" else { return try super.setValue(value, forUndefinedKey: key) }
        items = (value as? [Any])?.compactMap { $0 as? String } ?? []
    }
}

/// Ordered accessors whose `countOf<Key>` answers `reportedCount`, whatever the storage holds
/// (an accessor's bug); the insert and remove accessors log their calls.
final class MiscountedList: ModelObject {
    var storage: [String] = []
    var reportedCount = -1
    var calls: [String] = []

    override class func collectionAccessors(forKey key: String) -> CollectionAccessors? {
        guard key == "items" else { return super.collectionAccessors(forKey: key) }
        return .ordered(
            count: { (list: MiscountedList) in list.reportedCount },
            objectAt: { list, index in list.storage.indices.contains(index) ? list.storage[index] : "?" },
            insert: { list, item, index in list.calls.append("insert(\(item), \(index))") },
            remove: { list, index in list.calls.append("remove(\(index))") })
    }
}
