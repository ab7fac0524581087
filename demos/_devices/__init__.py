"""The pieces behind :mod:`demos.devices` that measure or choose devices: the machine's balance
(``balance``) and the devices a multi-device demo runs on (``pool``)."""
