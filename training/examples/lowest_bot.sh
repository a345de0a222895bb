#!/bin/bash
# The lowest-legal-action bot in bash (no jq): answers hello with ready and each act with the
# first id of "legal_actions" (cardzoo sends the legal ids in increasing order).
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*) echo '{"type":"ready"}' ;;
    *'"type":"act"'*)
      ids=${line#*\"legal_actions\":[}
      ids=${ids%%]*}
      echo "{\"action\":${ids%%,*}}" ;;
  esac
done
