// Library module of the gc-bridge Android kit. Include the build (../settings.gradle.kts) with
// includeBuild(...) and depend on "dev.gcbridge:gccomments", or copy gccomments/ into your
// project and add `include(":gccomments")` to settings.gradle.kts, or copy the sources into your
// app module.
plugins {
    id("com.android.library")
    id("org.jetbrains.kotlin.android")
}

group = "dev.gcbridge"
version = "1.0.0"

android {
    namespace = "dev.gcbridge.comments"
    compileSdk = 35
    defaultConfig {
        minSdk = 24
    }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
    kotlinOptions {
        jvmTarget = "17"
    }
}

dependencies {
    // WebViewCompat.addWebMessageListener / addDocumentStartJavaScript
    implementation("androidx.webkit:webkit:1.12.1")
    implementation("org.jetbrains.kotlinx:kotlinx-coroutines-android:1.9.0")
    // src/test: JVM unit tests of the kit's policies, and *RobolectricTest of the controller's glue
    // (make kits-check runs both against android-all)
    testImplementation("junit:junit:4.13.2")
    testImplementation("org.robolectric:robolectric:4.14.1")
}

// the Robolectric tests read the kit's assets (gc-bridge.js) through the app context
android.testOptions.unitTests.isIncludeAndroidResources = true
