#!/usr/bin/env bash
# Makes sure wgpu will find a GPU adapter. When no Vulkan driver is installed (a machine or CI
# runner without a GPU), installs Mesa's software Vulkan driver (lavapipe) from Debian/Ubuntu
# packages. Machines with a GPU driver are left alone.
set -euo pipefail

have_vulkan_icd() {
    local d
    for d in /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d; do
        if compgen -G "$d/*.json" >/dev/null; then
            return 0
        fi
    done
    [ -n "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]
}

if have_vulkan_icd && ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; then
    exit 0
fi

echo "No Vulkan driver found: installing Mesa's software Vulkan driver (mesa-vulkan-drivers)." >&2
if ! command -v apt-get >/dev/null; then
    echo "error: apt-get is not available; install a Vulkan driver for your GPU, or Mesa's lavapipe, by hand." >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
        echo "error: installing mesa-vulkan-drivers needs root (or sudo)." >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null
echo "Installed lavapipe (software Vulkan)." >&2
