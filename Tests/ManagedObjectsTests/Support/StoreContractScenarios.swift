import Foundation
import Testing
@testable import ManagedObjects

/// The context scenarios every persistent store must pass as the in-memory store does, in
/// groups: each runs its scenarios over the store `TestStore.kind` names (the SQLite and
/// PostgreSQL suites set it), so the stores' suites cannot drift apart.
enum StoreContractScenarios {
    static func deleteRules() throws {
        let tests = ContextDeleteRuleTests()
        try tests.nullifyRemovesTheDeletedObjectFromItsRelatedObjects()
        try tests.cascadeDeletesThroughChains()
        try tests.denyLeavesBothObjectsUntilTheRelatedObjectsAreGone()
        try tests.noActionLeavesTheRelatedObjectsPointingAtTheDeletedOne()
    }

    static func mergePolicies() throws {
        let tests = MergePolicyTests()
        try tests.errorPolicyReportsTheConflictsAndWritesNothing()
        try tests.storeTrumpKeepsTheirChangesAndSavesOurOthers()
        try tests.objectTrumpKeepsOurChangesAndTakesTheirOthers()
        try tests.overwriteWritesOurObjectWhole()
        try tests.rollbackDropsOurChangesForTheObjectsInConflict()
        try tests.mergeChangesFromContextDidSaveBringsTheOtherContextsSavedValues()
    }

    static func errorPaths() throws {
        let tests = ContextErrorPathTests()
        try tests.aRelationshipToAnObjectThatIsNotSavedFailsTheSave()
        try tests.mergeConflictOnADeleteOfARecordChangedElsewhere()
        try tests.uriOfATemporaryIDReadsBackInTheSameProcess()
    }

    static func lifecycle() throws {
        let tests = ContextLifecycleTests()
        try tests.willSaveAndDidSaveRunForEveryChangedObjectInOrder()
        try tests.changesMadeInWillSaveAreSaved()
        try tests.refreshWithoutMergeTurnsIntoAFaultAndDropsChanges()
        try tests.refreshWithMergeKeepsUnsavedChangesOverFreshValues()
        try tests.insertThenDeleteBeforeSavingLeavesNothingBehind()
        try tests.rollbackDiscardsInsertsDeletesAndUpdates()
        try tests.resetForgetsEverything()
        try tests.uniquingGivesOneObjectPerRecordPerContext()
        try tests.awakeFromFetchChangesAreNotRecorded()
    }

    static func notificationsAndUndo() throws {
        try ContextNotificationTests().saveNotificationsCarryObjectsAndIDs()
        try ContextNotificationTests().aFailedSavePostsNoDidSave()
        let undo = ContextUndoTests()
        try undo.undoRestoresRelationshipChangesWithTheirInverses()
        try undo.undoADeleteRestoresTheObjectAndNullifiedRelationships()
        try undo.undoACascadeDelete()
    }
}
