// A test app with CETP v2 turned off (gradle.properties).
plugins { id("com.android.application") version "8.7.3" }

android {
    namespace = "dev.cetp.v1only" // also the application id
    compileSdk = 34
    defaultConfig {
        minSdk = 21
        targetSdk = 34
        manifestPlaceholders["cetpAuthority"] = "dev.cetp.v1only.tools"
        manifestPlaceholders["cetpLibrary"] = "cetp_v1_only"
    }
}

dependencies { implementation(project(":cetp")) }
