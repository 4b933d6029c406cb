import Foundation
import ModelObjects

/// A model that provides collection accessors, so that mutable proxies call them instead of
/// editing the storage. Every accessor call is logged in `calls`.
final class Portfolio: ModelObject {
    /// Ordered key with declared storage and a `replace` accessor.
    @Relationship var projects: [Project] = []
    /// Unordered key with declared storage and the add/remove-one-object accessors.
    @Relationship var archived: Set<Project> = []
    /// Storage of the ordered key "milestones", which has no declared property and no
    /// `replace` accessor.
    var milestoneStorage: [String] = []
    /// Storage of the unordered key "labels", which has no declared property; its accessors are
    /// the bulk add/remove/intersect ones plus `members`.
    var labelStorage: Set<String> = []
    /// The accessor calls, in order.
    var calls: [String] = []

    /// The calls that change the collection (count and element reads left out).
    var mutatingCalls: [String] {
        calls.filter { !$0.hasPrefix("count") && !$0.hasPrefix("objectAt") && !$0.hasPrefix("members") }
    }

    override class func collectionAccessors(forKey key: String) -> CollectionAccessors? {
        switch key {
        case "projects":
            return .ordered(
                count: { (portfolio: Portfolio) -> Int in
                    portfolio.calls.append("count")
                    return portfolio.projects.count
                },
                objectAt: { (portfolio: Portfolio, index: Int) -> Project in
                    portfolio.calls.append("objectAt(\(index))")
                    return portfolio.projects[index]
                },
                insert: { (portfolio: Portfolio, project: Project, index: Int) in
                    portfolio.calls.append("insert(\(project.name),\(index))")
                    portfolio.projects.insert(project, at: index)
                },
                remove: { (portfolio: Portfolio, index: Int) in
                    portfolio.calls.append("remove(\(index))")
                    portfolio.projects.remove(at: index)
                },
                replace: { (portfolio: Portfolio, index: Int, project: Project) in
                    portfolio.calls.append("replace(\(index),\(project.name))")
                    portfolio.projects[index] = project
                })
        case "milestones":
            return .ordered(
                count: { (portfolio: Portfolio) -> Int in
                    portfolio.calls.append("count")
                    return portfolio.milestoneStorage.count
                },
                objectAt: { (portfolio: Portfolio, index: Int) -> String in
                    portfolio.calls.append("objectAt(\(index))")
                    return portfolio.milestoneStorage[index]
                },
                insert: { (portfolio: Portfolio, milestone: String, index: Int) in
                    portfolio.calls.append("insert(\(milestone),\(index))")
                    portfolio.milestoneStorage.insert(milestone, at: index)
                },
                remove: { (portfolio: Portfolio, index: Int) in
                    portfolio.calls.append("remove(\(index))")
                    portfolio.milestoneStorage.remove(at: index)
                })
        case "archived":
            return .unordered(
                addObject: { (portfolio: Portfolio, project: Project) in
                    portfolio.calls.append("addObject(\(project.name))")
                    portfolio.archived.insert(project)
                },
                removeObject: { (portfolio: Portfolio, project: Project) in
                    portfolio.calls.append("removeObject(\(project.name))")
                    portfolio.archived.remove(project)
                })
        case "labels":
            return .unordered(
                members: { (portfolio: Portfolio) -> Set<String> in
                    portfolio.calls.append("members")
                    return portfolio.labelStorage
                },
                add: { (portfolio: Portfolio, labels: Set<String>) in
                    portfolio.calls.append("add(\(labels.sorted().joined(separator: ",")))")
                    portfolio.labelStorage.formUnion(labels)
                },
                remove: { (portfolio: Portfolio, labels: Set<String>) in
                    portfolio.calls.append("remove(\(labels.sorted().joined(separator: ",")))")
                    portfolio.labelStorage.subtract(labels)
                },
                intersect: { (portfolio: Portfolio, labels: Set<String>) in
                    portfolio.calls.append("intersect(\(labels.sorted().joined(separator: ",")))")
                    portfolio.labelStorage.formIntersection(labels)
                })
        default:
            return super.collectionAccessors(forKey: key)
        }
    }
}
