"""Node version names as nvm reads them, for the nvm stand-ins the harness writes (the
host's environments and the base images): LTS code names to major versions."""

NVM_SPEC_FUNCTION = r"""__polybench_nvm_spec() {
  case "$1" in
    lts/argon|argon) echo 4 ;; lts/boron|boron) echo 6 ;; lts/carbon|carbon) echo 8 ;;
    lts/dubnium|dubnium) echo 10 ;; lts/erbium|erbium) echo 12 ;;
    lts/fermium|fermium) echo 14 ;; lts/gallium|gallium) echo 16 ;;
    lts/hydrogen|hydrogen) echo 18 ;; lts/iron|iron) echo 20 ;; lts/jod|jod) echo 22 ;;
    *) echo "${1#v}" ;;
  esac
}
"""
"""A shell function printing the version an nvm argument names (``lts/iron`` is 20,
``v18`` is 18); other names (``default``, ``node``) print as given."""
