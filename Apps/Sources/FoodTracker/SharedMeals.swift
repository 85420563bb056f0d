import ArgumentParser
import FoodTrackerApp

#if Database
import KeepsakeCloud
#endif

extension ContainerOptions {
    /// Takes `list` in step with the database at `url`; returns what pushes the
    /// command's change, then takes others' again. Homepwner's engine, in a command.
    @MainActor static func share(_ list: MealList, through url: String) async throws -> () async throws -> Void {
        #if Database
        let database = try CloudDatabase(url: url)
        Task.detached { try await database.run() }
        let backend = PostgresItemStoreBackend<Meal>(
            database: database, store: MealList.identifier, mergePolicy: .fieldLastWriterWins)
        let sync = try ItemStoreSync(
            store: list.store, backend: backend, directory: list.container.directory(.applicationSupport))
        try await sync.synchronize()
        return {
            do {
                try await sync.synchronize()
            } catch {
                throw ValidationFailure(
                    "the change is saved here, not yet in the database (the next run shares it): \(error)")
            }
        }
        #else
        throw ValidationError(
            "--database needs a build with the Database trait: swift run --package-path Apps --traits Database foodtracker"
        )
        #endif
    }
}
