// The Jetpack Compose entry point of the gc-bridge Android kit: GcComments(), an AndroidView
// around GcCommentsController. A module of its own so that apps without Compose never pull it
// in. Not compiled by gc-bridge's own `make kits-check`: Compose and androidx.lifecycle come only
// from Google's Maven repository, which gc-bridge's machines do not reach (see ../README.md).
plugins {
    id("com.android.library")
    id("org.jetbrains.kotlin.android")
    id("org.jetbrains.kotlin.plugin.compose")
}

group = "dev.gcbridge"
version = "1.0.0"

android {
    namespace = "dev.gcbridge.comments.compose"
    compileSdk = 35
    defaultConfig {
        minSdk = 24
    }
    buildFeatures {
        compose = true
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
    api(project(":gccomments"))
    implementation(platform("androidx.compose:compose-bom:2024.12.01"))
    implementation("androidx.compose.ui:ui")
    implementation("androidx.activity:activity-compose:1.9.3")
    implementation("androidx.lifecycle:lifecycle-runtime-compose:2.8.7")
}
