// A benchmark fixture: AppDatabase against a bundled SQLite (src/lib.rs).
plugins { id("com.android.application") version "8.7.3" }

android {
    namespace = "dev.cetp.appdbbench" // also the application id
    compileSdk = 34
    defaultConfig {
        minSdk = 21
        targetSdk = 34
        manifestPlaceholders["cetpAuthority"] = "dev.cetp.appdbbench.tools"
        manifestPlaceholders["cetpLibrary"] = "cetp_app_db_bench"
    }
}

dependencies { implementation(project(":cetp")) }
