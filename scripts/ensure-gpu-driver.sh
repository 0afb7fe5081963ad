#!/usr/bin/env bash
# Makes sure wgpu finds GPU adapters on both backends the tests use. When no Vulkan driver is
# installed (a machine or CI runner without a GPU), installs Mesa's software Vulkan driver
# (lavapipe); when Mesa's EGL/OpenGL stack is missing, installs it too (llvmpipe, for wgpu's GL
# backend). Machines with a GPU driver and Mesa are left alone.
set -euo pipefail

have_vulkan() {
    local d found=1
    for d in /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d; do
        if compgen -G "$d/*.json" >/dev/null; then found=0; fi
    done
    [ -n "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && found=0
    [ $found = 0 ] && ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'
}

have_gl() {
    ldconfig -p 2>/dev/null | grep -q 'libEGL\.so\.1' &&
        ldconfig -p 2>/dev/null | grep -q 'libEGL_mesa\.so\.0' &&
        compgen -G "/usr/lib/*/dri/swrast_dri.so" >/dev/null
}

packages=()
have_vulkan || packages+=(mesa-vulkan-drivers libvulkan1)
have_gl || packages+=(libegl1 libegl-mesa0 libgl1-mesa-dri libgles2)
[ ${#packages[@]} = 0 ] && exit 0

echo "Installing Mesa's software drivers: ${packages[*]}" >&2
if ! command -v apt-get >/dev/null; then
    echo "error: apt-get is not available; install a Vulkan driver (or Mesa's lavapipe) and Mesa's EGL by hand." >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
        echo "error: installing ${packages[*]} needs root (or sudo)." >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${packages[@]}" >/dev/null
echo "Installed ${packages[*]}." >&2
