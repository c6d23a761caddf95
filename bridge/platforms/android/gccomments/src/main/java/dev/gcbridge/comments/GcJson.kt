package dev.gcbridge.comments

/**
 * A small strict JSON reader for the coordinator (no android.*, no org.json, so that the
 * decisions run on a plain JVM too): objects become `Map<String, Any?>`, arrays `List<Any?>`,
 * integers `Int` (or `Long`), other numbers `Double`. Throws [IllegalArgumentException] on
 * anything that is not one JSON value. Callers bound the depth first ([withinDepth]).
 */
object GcJson {
    fun parse(text: String): Any? {
        val reader = Reader(text)
        reader.skipSpace()
        val value = reader.value()
        reader.skipSpace()
        require(reader.atEnd()) { "trailing characters at ${reader.pos}" }
        return value
    }

    /**
     * [value] as a JSON string literal, which is also a JavaScript one: ASCII only, every other
     * character (U+2028 / U+2029, emoji, lone surrogates) and every control character as `\uXXXX`,
     * `"` and `\` escaped. Text pasted into a script this way stays data, never code.
     */
    fun quote(value: String): String {
        val out = StringBuilder(value.length + 2).append('"')
        for (c in value) {
            when {
                c == '"' -> out.append("\\\"")
                c == '\\' -> out.append("\\\\")
                c < ' ' || c.toInt() >= 0x7f || c == '<' || c == '>' ->
                    out.append("\\u").append(String.format("%04x", c.toInt()))
                else -> out.append(c)
            }
        }
        return out.append('"').toString()
    }

    /** Whether [text] nests at most [limit] objects/arrays: one linear scan, as bridge.js does. */
    fun withinDepth(text: String, limit: Int): Boolean {
        var depth = 0
        var inString = false
        var i = 0
        while (i < text.length) {
            val c = text[i]
            if (inString) {
                if (c == '\\') i += 1 else if (c == '"') inString = false
            } else if (c == '"') {
                inString = true
            } else if (c == '{' || c == '[') {
                depth += 1
                if (depth > limit) return false
            } else if (c == '}' || c == ']') {
                depth -= 1
            }
            i += 1
        }
        return true
    }

    private class Reader(val text: String) {
        var pos = 0

        fun atEnd() = pos >= text.length

        fun skipSpace() {
            while (pos < text.length && (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\r' || text[pos] == '\t')) pos += 1
        }

        private fun peek(): Char {
            require(pos < text.length) { "unexpected end" }
            return text[pos]
        }

        private fun expect(word: String) {
            require(text.startsWith(word, pos)) { "expected $word at $pos" }
            pos += word.length
        }

        fun value(): Any? {
            return when (peek()) {
                '{' -> obj()
                '[' -> array()
                '"' -> string()
                't' -> { expect("true"); true }
                'f' -> { expect("false"); false }
                'n' -> { expect("null"); null }
                else -> number()
            }
        }

        private fun obj(): Map<String, Any?> {
            val out = LinkedHashMap<String, Any?>()
            pos += 1
            skipSpace()
            if (peek() == '}') { pos += 1; return out }
            while (true) {
                skipSpace()
                require(peek() == '"') { "expected a key at $pos" }
                val key = string()
                skipSpace()
                expect(":")
                skipSpace()
                out[key] = value()
                skipSpace()
                when (peek()) {
                    ',' -> pos += 1
                    '}' -> { pos += 1; return out }
                    else -> throw IllegalArgumentException("expected , or } at $pos")
                }
            }
        }

        private fun array(): List<Any?> {
            val out = ArrayList<Any?>()
            pos += 1
            skipSpace()
            if (peek() == ']') { pos += 1; return out }
            while (true) {
                skipSpace()
                out.add(value())
                skipSpace()
                when (peek()) {
                    ',' -> pos += 1
                    ']' -> { pos += 1; return out }
                    else -> throw IllegalArgumentException("expected , or ] at $pos")
                }
            }
        }

        private fun string(): String {
            pos += 1
            val out = StringBuilder()
            while (true) {
                val c = peek()
                pos += 1
                when {
                    c == '"' -> return out.toString()
                    c == '\\' -> {
                        val e = peek()
                        pos += 1
                        when (e) {
                            '"', '\\', '/' -> out.append(e)
                            'b' -> out.append('\b')
                            'f' -> out.append('\u000c')
                            'n' -> out.append('\n')
                            'r' -> out.append('\r')
                            't' -> out.append('\t')
                            'u' -> {
                                require(pos + 4 <= text.length) { "short \\u escape" }
                                require(text.substring(pos, pos + 4).all { it in HEX }) { "bad \\u escape" }
                                out.append(text.substring(pos, pos + 4).toInt(16).toChar())
                                pos += 4
                            }
                            else -> throw IllegalArgumentException("bad escape at $pos")
                        }
                    }
                    c < ' ' -> throw IllegalArgumentException("control character in a string at $pos")
                    else -> out.append(c)
                }
            }
        }

        private fun number(): Any {
            val start = pos
            if (pos < text.length && text[pos] == '-') pos += 1
            while (pos < text.length && (text[pos].isDigit() || text[pos] in ".eE+-")) pos += 1
            val token = text.substring(start, pos)
            require(NUMBER.matches(token)) { "not a JSON value at $start" }
            if (token.none { it == '.' || it == 'e' || it == 'E' }) {
                val asLong = token.toLongOrNull()
                if (asLong != null) {
                    return if (asLong >= Int.MIN_VALUE && asLong <= Int.MAX_VALUE) asLong.toInt() else asLong
                }
            }
            return token.toDouble()
        }
    }

    private const val HEX = "0123456789abcdefABCDEF"
    private val NUMBER = Regex("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")
}
