# shellcheck shell=bash
# Sourced by bin/tidestore, bin/test and .ci/run: finds a JDK >= 25 and sets JAVA_HOME.
#
# Looks, in order, at $JAVA_HOME, the `java` on PATH, then every JDK under
# ${TIDESTORE_JVM_DIRS:-/usr/lib/jvm} (newest first). Prints to stderr and returns 1
# when none qualifies, naming every place it looked and what it found there.

TIDESTORE_MIN_JAVA=25

# The JVM flags every Tidestore process needs on JDK 25; keep in step with
# <tidestore.jvm.flags> in pom.xml (the tests' JVMs get the same set).
TIDESTORE_JVM_FLAGS=(
  --enable-native-access=ALL-UNNAMED
  --sun-misc-unsafe-memory-access=allow
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-exports=java.base/sun.nio.ch=ALL-UNNAMED
  --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED
  -Dio.netty.tryReflectionSetAccessible=true
)

# Prints the feature version of the java binary $1 (25 for "25.0.3"), or nothing.
tidestore_java_major() {
  local out
  out=$("$1" -version 2>&1 | head -n 1) || return 1
  # openjdk version "25.0.3" 2025-10-21 / java version "1.8.0_392"
  out=${out#*\"}
  out=${out%%\"*}
  out=${out%%[.+-]*}
  [[ $out =~ ^[0-9]+$ ]] && echo "$out"
}

tidestore_find_jdk() {
  local -a candidates=() looked=()
  local java major home dir
  [[ -n ${JAVA_HOME:-} ]] && candidates+=("$JAVA_HOME/bin/java")
  java=$(command -v java 2>/dev/null) && candidates+=("$(readlink -f "$java")")
  for dir in ${TIDESTORE_JVM_DIRS:-/usr/lib/jvm}; do
    [[ -d $dir ]] || { looked+=("$dir/*: no such directory"); continue; }
    while IFS= read -r home; do
      [[ -x $home/bin/java ]] && candidates+=("$home/bin/java")
    done < <(find "$dir" -mindepth 1 -maxdepth 1 \( -type d -o -type l \) 2>/dev/null | sort -rV)
  done
  for java in "${candidates[@]}"; do
    if [[ ! -x $java ]]; then
      looked+=("$java: not executable")
      continue
    fi
    major=$(tidestore_java_major "$java") || major=""
    if [[ -n $major && $major -ge $TIDESTORE_MIN_JAVA ]]; then
      home=$(cd "$(dirname "$java")/.." && pwd)
      # javac too: the build needs a JDK, not a JRE.
      if [[ -x $home/bin/javac ]]; then
        JAVA_HOME=$home
        export JAVA_HOME
        return 0
      fi
      looked+=("$java: Java $major, but a JRE without javac")
    else
      looked+=("$java: Java ${major:-unknown}")
    fi
  done
  {
    echo "tidestore: no JDK ${TIDESTORE_MIN_JAVA} or newer found. Looked at:"
    [[ -z ${JAVA_HOME:-} ]] && echo "  \$JAVA_HOME: not set"
    command -v java >/dev/null 2>&1 || echo "  java on PATH: none"
    local line
    for line in "${looked[@]}"; do echo "  $line"; done
    [[ ${#candidates[@]} -eq 0 ]] && echo "  ${TIDESTORE_JVM_DIRS:-/usr/lib/jvm}/*: no JDKs"
    echo "Install a JDK ${TIDESTORE_MIN_JAVA} (e.g. Temurin 25) under /usr/lib/jvm, or set JAVA_HOME to one."
  } >&2
  return 1
}
