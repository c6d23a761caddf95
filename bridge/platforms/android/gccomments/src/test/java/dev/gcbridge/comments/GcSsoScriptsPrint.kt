package dev.gcbridge.comments

/**
 * Prints, for each line of standard input (a JSON string literal), the script [GcSsoScripts]
 * builds to inject it, one per line; the suite evaluates them in a JavaScript engine and checks
 * that gcSsoLogin receives the exact string (tests/bridge/platforms/test_injection.py):
 *
 *     kotlinc GcJson.kt GcSsoScripts.kt GcSsoScriptsPrint.kt -include-runtime -d scripts.jar
 *     java -cp scripts.jar dev.gcbridge.comments.GcSsoScriptsPrintKt < values.jsonl
 */
fun main() {
    while (true) {
        val line = readLine() ?: break
        if (line.isBlank()) continue
        println(GcSsoScripts.login(GcJson.parse(line) as String))
    }
    println(GcSsoScripts.LOGOUT)
    println(GcSsoScripts.LIFECYCLE_SCRIPT.replace("\n", " "))
}
