# Sourced by deploy/run.sh and deploy/prepare.sh: the one token file
# (docs/config.md) that every service reads.

# make_tokens FILE: makes FILE with fresh tokens unless it exists (so printed
# URLs and judges' links survive restarts). Its scopes name no tournament,
# so its table judge opens games only in tournaments the scoring service
# holds (crates/access `Caller::may_open_in`).
make_tokens() {
  local file=$1
  [ -f "$file" ] && return 0
  mkdir -p "$(dirname "$file")"
  local t=()
  for _ in 1 2 3 4; do t+=("$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"); done
  (umask 077; printf '{"tokens": [\n  {"role":"chief_judge","token":"%s"},\n  {"role":"broadcast","token":"%s"},\n  {"role":"table_judge","token":"%s","games":["*.*.*.t1.*"]},\n  {"role":"organiser","token":"%s"}\n]}\n' \
    "${t[@]}" >"$file")
}

# tok ROLE FILE: the first token of ROLE (one entry a line, "role" before "token").
tok() { sed -n "s/.*\"role\": *\"$1\", *\"token\": *\"\([^\"]*\)\".*/\1/p" "$2" | head -n 1; }
