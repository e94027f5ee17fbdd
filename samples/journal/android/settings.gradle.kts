// This directory is the app module and the root of its Gradle build.
pluginManagement { repositories { google(); mavenCentral() } }
dependencyResolutionManagement { repositories { google(); mavenCentral() } }

// The CETP template module (ContentProvider, discovery Service, manifest entries, cargo-ndk).
include(":cetp")
project(":cetp").projectDir = file("../../../android-template")
