// The Expenses sample app: an ordinary Android app module plus the CETP template.
plugins { id("com.android.application") version "8.7.3" }

android {
    namespace = "dev.cetp.samples.expenses" // also the application id
    compileSdk = 34
    defaultConfig {
        minSdk = 21
        targetSdk = 34
        // The authority agents call, and the Rust library (libcetp_sample_expenses.so).
        manifestPlaceholders["cetpAuthority"] = "dev.cetp.samples.expenses.tools"
        manifestPlaceholders["cetpLibrary"] = "cetp_sample_expenses"
        resValue("bool", "cetp_serve_apex", "true") // the Apex agent's plugin host too
    }
}

dependencies { implementation(project(":cetp")) } // the template module
