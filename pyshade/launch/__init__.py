"""The one launch path of every device (see ``binder``): arguments bound, checked and
packed once per argument signature, values checked per call."""

from .binder import (
                     BINDER_CACHE_SIZE,
                     Binder,
                     BinderCache,
                     bind_arguments,
                     check_device_workgroup,
                     check_workgroup_size,
                     launch_grid,
)

__all__ = ["BINDER_CACHE_SIZE", "Binder", "BinderCache", "bind_arguments",
           "check_device_workgroup", "check_workgroup_size", "launch_grid"]
