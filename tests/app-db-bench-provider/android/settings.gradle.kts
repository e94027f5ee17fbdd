// This directory is the app module and the root of its Gradle build.
pluginManagement { repositories { google(); mavenCentral() } }
dependencyResolutionManagement { repositories { google(); mavenCentral() } }

include(":cetp")
project(":cetp").projectDir = file("../../../android-template")
