# commands.bash: convgen's commands in the order its documentation lists
# them, for the scripts that write a page per command from its help text
# (gen-cli-doc.sh: docs/cli.md; gen-man.sh: the man pages). Sourced.
# shellcheck disable=SC2034 # read by the scripts that source it
CONVGEN_COMMANDS=(devices compile run space gen tune best export bench import infer worker help)
