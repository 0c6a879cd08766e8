import { i18n } from '@lingui/core';

// The web app's logic is tested in English, the source language: messages are their own text.
i18n.loadAndActivate({ locale: 'en', messages: {} });
