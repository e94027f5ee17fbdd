// The Journal sample app: a Kotlin app whose data is in Room, plus the CETP template.
plugins {
    id("com.android.application") version "8.7.3"
    id("org.jetbrains.kotlin.android") version "2.2.20"
    id("com.google.devtools.ksp") version "2.2.20-2.0.3"
}

android {
    namespace = "dev.cetp.samples.journal" // also the application id
    compileSdk = 34
    defaultConfig {
        minSdk = 21
        targetSdk = 34
        // The authority agents call, and the Rust library (libcetp_sample_journal.so).
        manifestPlaceholders["cetpAuthority"] = "dev.cetp.samples.journal.tools"
        manifestPlaceholders["cetpLibrary"] = "cetp_sample_journal"
        resValue("bool", "cetp_serve_apex", "true") // the Apex agent's plugin host too
    }
}

dependencies {
    implementation(project(":cetp")) // the template module
    implementation("androidx.room:room-runtime:2.7.2")
    ksp("androidx.room:room-compiler:2.7.2")
}
