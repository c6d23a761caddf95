package dev.gcbridge.comments

import java.io.File

/**
 * Runs `bridge/protocol/app-protocol.json` against [GcSsoCoordinator] on a plain JVM:
 *
 *     kotlinc GcJson.kt GcSsoCoordinator.kt GcSsoCoordinatorTable.kt -include-runtime -d table.jar
 *     java -cp table.jar dev.gcbridge.comments.GcSsoCoordinatorTableKt path/to/app-protocol.json
 *
 * (`python bridge/protocol/kits_check.py` does both.) Prints one line per failed case and a
 * last line `kotlin: N/M cases passed`; exit status 1 when any case fails.
 */
fun main(args: Array<String>) {
    val path = args.firstOrNull() ?: "bridge/protocol/app-protocol.json"
    @Suppress("UNCHECKED_CAST")
    val table = GcJson.parse(File(path).readText()) as Map<String, Any?>
    @Suppress("UNCHECKED_CAST")
    val cases = table["cases"] as List<Map<String, Any?>>
    @Suppress("UNCHECKED_CAST")
    val defaults = table["defaults"] as Map<String, Any?>
    var passed = 0
    for (case in cases) {
        val problem = try {
            runCase(defaults, case)
        } catch (e: Exception) {
            "raised $e"
        }
        if (problem == null) passed += 1 else println("FAIL ${case["name"]}: $problem")
    }
    println("kotlin: $passed/${cases.size} cases passed")
    if (passed != cases.size) System.exit(1)
}

@Suppress("UNCHECKED_CAST")
private fun runCase(defaults: Map<String, Any?>, case: Map<String, Any?>): String? {
    val setup = defaults + (case["setup"] as Map<String, Any?>)
    val views = HashMap<String, GcSsoCoordinator>() // one coordinator per WebView ("view", default "a")
    val steps = case["steps"] as List<Map<String, Any?>>
    for ((index, step) in steps.withIndex()) {
        val view = step["view"] as String? ?: "a"
        val coordinator = views.getOrPut(view) {
            GcSsoCoordinator(
                user = setup["user"] as String?,
                sso = setup["sso"] as Boolean,
                triggers = (setup["triggers"] as List<String>).toSet(),
                keepWidgetSession = setup["keep_widget_session"] as Boolean
            )
        }
        val input = step["in"] as Map<String, Any?>
        val got = apply(coordinator, input).map { it.toMap() }
        if (got != step["out"]) {
            val on = if (step.containsKey("view")) " (view $view)" else ""
            return "step ${index + 1}$on ${input["in"]}\n  expected ${step["out"]}\n  got      $got"
        }
    }
    return null
}

private fun apply(c: GcSsoCoordinator, input: Map<String, Any?>): List<GcSsoEffect> =
    when (input["in"]) {
        "message" -> c.message(
            (input["data"] as String) + " ".repeat((input["pad"] as Int?) ?: 0),
            input["from_widget"] as Boolean? ?: true
        )
        "page-finished" -> c.pageFinished()
        "app-login" -> c.appLogin(input["user"] as String)
        "app-logout" -> c.appLogout()
        "fetch-result" -> c.fetchResult(input["fetch"] as Int, input["ssoData"] as String?, input["error"] as String?)
        "conflict-result" -> c.conflictResult(input["conflict"] as Int, input["ssoData"] as String?, input["error"] as String?)
        "relaunch" -> c.relaunch()
        "page-started" -> c.pageStarted()
        "restored" -> c.restored()
        "content-terminated" -> c.contentTerminated()
        "resume" -> c.resume((input["seconds"] as Number).toDouble())
        else -> throw IllegalArgumentException("unknown input ${input["in"]}")
    }
