// The gc-bridge Android kit as a Gradle build of one library module (gccomments). In your app's
// settings.gradle.kts, either include this build:
//     includeBuild("path/to/gc-bridge/bridge/platforms/android")
// or copy gccomments/ next to your app module and add include(":gccomments")
// GcComments(), the Jetpack Compose entry point (depends on :gccomments and Compose)
include(":gccomments-compose"); then
//     dependencies { implementation(project(":gccomments")) }
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
    plugins {
        id("com.android.library") version "8.7.3"
        id("org.jetbrains.kotlin.android") version "2.0.21"
        id("org.jetbrains.kotlin.plugin.compose") version "2.0.21"
    }
}

dependencyResolutionManagement {
    repositories {
        google()
        mavenCentral()
    }
}

rootProject.name = "gc-bridge-android-kit"
include(":gccomments")
// GcComments(), the Jetpack Compose entry point (depends on :gccomments and Compose)
include(":gccomments-compose")
